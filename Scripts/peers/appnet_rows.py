"""The rows of WebRecord's benchmark peers written in Python, from an App.net stream response.

The same tables, columns, keys and values as Scripts/reference_import.py, as
dictionaries by column, for the libraries that take rows rather than SQL:

    User        id, name, avatarImagePath, coverImagePath   (key: id)
    Counts      user, followers, following, posts, stars    (key: the user's id)
    CoverImage  user, url, width, height                     (key: the user's id)
    Post        id, date, text, thread_id, user              (key: id)
    Source      post, clientID, link, name                   (key: the post's id)

Each user is listed once for each of its posts, as the reference upserts it
once for each; dates are the response's text.
"""


def rows_of(response):
    """The rows of each table of `response`, by table name, in the order the reference writes them."""
    tables = {"User": [], "Counts": [], "CoverImage": [], "Post": [], "Source": []}
    for post in response["data"]:
        user = post.get("user")
        if user:
            avatar = user.get("avatar_image") or {}
            cover = user.get("cover_image") or {}
            counts = user.get("counts") or {}
            tables["User"].append(
                {
                    "id": user["id"],
                    "name": user.get("name"),
                    "avatarImagePath": avatar.get("url"),
                    "coverImagePath": cover.get("url"),
                }
            )
            if counts:
                tables["Counts"].append(
                    {
                        "user": user["id"],
                        "followers": counts.get("followers", 0),
                        "following": counts.get("following", 0),
                        "posts": counts.get("posts", 0),
                        "stars": counts.get("stars", 0),
                    }
                )
            if cover:
                tables["CoverImage"].append(
                    {
                        "user": user["id"],
                        "url": cover.get("url"),
                        "width": cover.get("width", 0),
                        "height": cover.get("height", 0),
                    }
                )
        tables["Post"].append(
            {
                "id": post["id"],
                "date": post.get("created_at"),
                "text": post.get("text"),
                "thread_id": post.get("thread_id"),
                "user": user["id"] if user else None,
            }
        )
        source = post.get("source")
        if source:
            tables["Source"].append(
                {
                    "post": post["id"],
                    "clientID": source.get("client_id"),
                    "link": source.get("link"),
                    "name": source.get("name"),
                }
            )
    return tables


# The primary key of each table: its natural key.
KEYS = {"User": "id", "Counts": "user", "CoverImage": "user", "Post": "id", "Source": "post"}
