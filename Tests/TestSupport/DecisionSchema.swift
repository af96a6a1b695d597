/// A small schema exercising every kind of key and relationship, for the decision tests (of
/// both stores: the PostgreSQL tests populate it too).
public let decisionSchemaJSON = """
    {
      "version": 1,
      "dateFormats": ["dd/MM/yyyy"],
      "entities": {
        "Post": {
          "primaryKey": "id",
          "keyPathForResponseObject": "data",
          "attributes": {
            "id": { "type": "integer" },
            "text": { "type": "string" },
            "title": { "type": "string", "optional": false },
            "date": { "type": "date", "key": ["created_at", "date"] },
            "score": { "type": "double" },
            "flag": { "type": "boolean" },
            "views": { "type": "integer", "default": 7 }
          },
          "relationships": {
            "user": { "destination": "User", "inverse": "posts" },
            "tags": { "destination": "Tag", "toMany": true, "ordered": true, "inverse": "posts" },
            "comments": { "destination": "Comment", "toMany": true, "inverse": "post", "merge": "replace", "deleteRule": "cascade" },
            "attachment": { "destination": "Attachment", "inverse": "post" }
          }
        },
        "User": {
          "primaryKey": "id",
          "attributes": {
            "id": { "type": "string" },
            "name": { "type": "string" },
            "avatar": { "type": "url", "key": "avatar_image.url" }
          },
          "relationships": {
            "posts": { "destination": "Post", "toMany": true, "inverse": "user" },
            "counts": { "destination": "Counts", "inverse": "user" }
          }
        },
        "Counts": {
          "primaryKey": "user",
          "attributes": { "followers": { "type": "integer" } },
          "relationships": { "user": { "destination": "User", "inverse": "counts" } }
        },
        "Tag": {
          "primaryKey": "name",
          "attributes": { "name": { "type": "string" } },
          "relationships": { "posts": { "destination": "Post", "toMany": true, "inverse": "tags" } }
        },
        "Comment": {
          "primaryKey": "id",
          "attributes": { "id": { "type": "integer" }, "body": { "type": "string" } },
          "relationships": { "post": { "destination": "Post", "inverse": "comments" } }
        },
        "Attachment": {
          "primaryKey": "id",
          "attributes": { "id": { "type": "integer" }, "url": { "type": "string" } },
          "relationships": { "post": { "destination": "Post", "inverse": "attachment" } }
        },
        "Event": {
          "primaryKey": ["source", "number"],
          "attributes": { "source": { "type": "string" }, "number": { "type": "integer" }, "label": { "type": "string" } }
        },
        "Shape": {
          "primaryKey": "id",
          "abstract": true,
          "subentities": { "key": "kind", "map": { "circle": "Circle", "square": "Square" } },
          "attributes": { "id": { "type": "integer" } }
        },
        "Circle": { "parent": "Shape", "attributes": { "radius": { "type": "double" } } },
        "Square": { "parent": "Shape", "attributes": { "side": { "type": "double" } } }
      }
    }
    """
