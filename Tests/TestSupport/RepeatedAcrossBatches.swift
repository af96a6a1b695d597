/// The schema and responses of the tests of records repeated across the batches of a stream
/// (library and PostgreSQL): posts by one user `u1`, nested with its counts, which a post's
/// `stats` can also name apart from the user, by their owner.
public enum RepeatedAcrossBatches {
    public static let schemaJSON = """
        {
          "version": 1,
          "entities": {
            "Post": {
              "primaryKey": "id",
              "keyPathForResponseObject": "data",
              "attributes": { "id": { "type": "integer" }, "title": { "type": "string" } },
              "relationships": {
                "user": { "destination": "User", "inverse": "posts" },
                "stats": { "destination": "Counts", "inverse": "statsOf" }
              }
            },
            "User": {
              "primaryKey": "id",
              "attributes": { "id": { "type": "string" }, "name": { "type": "string" } },
              "relationships": {
                "posts": { "destination": "Post", "toMany": true, "inverse": "user", "merge": "union" },
                "counts": { "destination": "Counts", "inverse": "user" }
              }
            },
            "Counts": {
              "primaryKey": "user",
              "attributes": { "followers": { "type": "integer" } },
              "relationships": {
                "user": { "destination": "User", "inverse": "counts" },
                "statsOf": { "destination": "Post", "toMany": true, "inverse": "stats" }
              }
            }
          }
        }
        """

    /// A post by `u1`, with the user's name and followers.
    public static func post(_ id: Int, name: String = "Ann", followers: Int = 1, title: String = "t") -> String {
        #"{"id": \#(id), "title": "\#(title)", "user": {"id": "u1", "name": "\#(name)", "counts": {"followers": \#(followers)}}}"#
    }

    /// A post whose `stats` name `u1`'s counts apart from the user, with 5 followers.
    public static func stats(_ id: Int) -> String {
        #"{"id": \#(id), "title": "s", "stats": {"user": "u1", "followers": 5}}"#
    }

    /// A first post long enough (over 200 bytes) to fill a batch of 200 bytes on its own.
    public static let longPost = post(1, title: String(repeating: "x", count: 200))

    /// Responses in which another record changes the repeated user's counts between two of its
    /// repeats: in a batch between them, after the repeat in its batch, before it in its batch.
    public static let countsChangedBetweenRepeats: [[String]] = [
        [longPost, stats(2), post(3)],
        [longPost, post(3), stats(2)],
        [longPost, stats(2), post(3), post(4)],
    ]

    /// The followers `u1`'s counts end with, once `posts` are populated: the last occurrence
    /// that gives them wins.
    public static func followers(after posts: [String]) -> Int {
        posts.last == stats(2) ? 5 : 1
    }

    /// `posts` as one response.
    public static func response(_ posts: [String]) -> String {
        "{\"data\": [\(posts.joined(separator: ", "))]}"
    }
}
