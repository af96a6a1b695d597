/// A schema for the observation tests of both stores: posts with a rank, a category and an
/// author; authors with their posts; tags.
public let observationSchemaJSON = """
    {
      "entities": {
        "Post": {
          "primaryKey": "id",
          "attributes": {
            "id": { "type": "integer" }, "title": { "type": "string" },
            "rank": { "type": "integer" }, "category": { "type": "string" }
          },
          "relationships": { "author": { "destination": "Author", "inverse": "posts" } }
        },
        "Author": {
          "primaryKey": "id",
          "attributes": { "id": { "type": "integer" }, "name": { "type": "string" } },
          "relationships": { "posts": { "destination": "Post", "toMany": true, "inverse": "author" } }
        },
        "Tag": { "primaryKey": "name", "attributes": { "name": { "type": "string" } } }
      }
    }
    """
