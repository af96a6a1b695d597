import WebRecord

/// A value as text whose bytes are its own: non-ASCII scalars escaped, so that canonically
/// equivalent strings (equal as Swift strings) differ here as they do in the store.
public func exactText(_ value: DatabaseValue) -> String {
    guard case .text(let text) = value else { return value.description }
    var escaped = "'"
    for scalar in text.unicodeScalars {
        if scalar.isASCII {
            escaped.unicodeScalars.append(scalar)
        } else {
            escaped += "\\u{\(String(scalar.value, radix: 16))}"
        }
    }
    return escaped + "'"
}

/// The schemas of the adversarial population tests, shared by the SQLite suites
/// (`AdversarialStreamTests`, `AdversarialStreamTests2`, `AdversarialStreamTests3`) and the
/// PostgreSQL parity suite, which populates the same responses into both stores.
public enum AdversarialSchemaJSON {
    /// Animals of a hierarchy chosen by `kind` (`Dog`, `Cat`), with a self-inverse many-to-many
    /// (`friends`) and one-to-one (`mate`), one-to-ones kept in either row, a record identified by
    /// its animal, a keyless note, a united list, sub-entity lists and stubs of a person whose name
    /// is not optional (`AdversarialStreamTests5`, `PostgreSQLHierarchyParityTests`).
    public static let zoo = #"""
        {"entities": {
          "Animal": {"primaryKey": "id", "keyPathForResponseObject": "data",
            "subentities": {"key": "kind", "map": {"dog": "Dog", "cat": "Cat"}},
            "attributes": {"id": {"type": "integer"}, "name": {"type": "string"}, "age": {"type": "integer"}},
            "relationships": {
              "friends": {"destination": "Animal", "toMany": true, "inverse": "friends"},
              "mate": {"destination": "Animal", "inverse": "mate"},
              "collar": {"destination": "Collar", "inverse": "animal", "deleteRule": "cascade"},
              "chip": {"destination": "Chip", "inverse": "animal"},
              "note": {"destination": "Note", "inverse": "animal", "deleteRule": "cascade"},
              "home": {"destination": "Home", "inverse": "residents"}}},
          "Dog": {"parent": "Animal", "attributes": {"bark": {"type": "string"}},
            "relationships": {
              "walker": {"destination": "Person", "inverse": "dogs"},
              "toys": {"destination": "Toy", "toMany": true, "ordered": true, "inverse": "dog", "merge": "union", "deleteRule": "cascade"}}},
          "Cat": {"parent": "Animal", "attributes": {"lives": {"type": "integer"}},
            "relationships": {
              "buddy": {"destination": "Person", "inverse": "cat"},
              "mice": {"destination": "Mouse", "toMany": true, "ordered": true, "inverse": "cat", "deleteRule": "cascade"}}},
          "Person": {"primaryKey": "id",
            "attributes": {"id": {"type": "string"}, "name": {"type": "string", "optional": false}},
            "relationships": {
              "dogs": {"destination": "Dog", "toMany": true, "inverse": "walker", "merge": "union"},
              "cat": {"destination": "Cat", "inverse": "buddy"}}},
          "Collar": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}, "color": {"type": "string"}},
            "relationships": {"animal": {"destination": "Animal", "inverse": "collar"}}},
          "Chip": {"primaryKey": "animal", "attributes": {"code": {"type": "string"}},
            "relationships": {"animal": {"destination": "Animal", "inverse": "chip"}}},
          "Note": {"attributes": {"text": {"type": "string"}},
            "relationships": {"animal": {"destination": "Animal", "inverse": "note"}}},
          "Home": {"primaryKey": "id", "attributes": {"id": {"type": "string"}, "name": {"type": "string"}},
            "relationships": {"residents": {"destination": "Animal", "toMany": true, "inverse": "home", "merge": "union"}}},
          "Toy": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}, "label": {"type": "string"}, "slot": {"type": "integer"}},
            "relationships": {"dog": {"destination": "Dog", "inverse": "toys"}}},
          "Mouse": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}, "size": {"type": "integer"}},
            "relationships": {"cat": {"destination": "Cat", "inverse": "mice"}}}
        }}
        """#

    /// Posts with a user (with owner-keyed counts), tags, labels, a keyless cover, and attributes read
    /// through numeric, dotted and escaped key paths.
    public static let blog = #"""
        {"entities": {
          "Post": {"primaryKey": "id", "keyPathForResponseObject": "data",
            "attributes": {"id": {"type": "integer"}, "title": {"type": "string"},
              "firstImage": {"type": "string", "key": "images.0.url"},
              "secondWidth": {"type": "integer", "key": "images.1.size.w"},
              "summary": {"type": "string", "key": "meta.summary"},
              "text": {"type": "string"},
              "extra": {"type": "json"}},
            "relationships": {"user": {"destination": "User", "inverse": "posts"},
              "tags": {"destination": "Tag", "toMany": true, "ordered": true, "inverse": "posts"},
              "labels": {"destination": "Label", "toMany": true, "inverse": "posts", "merge": "union"},
              "cover": {"destination": "Cover", "inverse": "post"}}},
          "User": {"primaryKey": "id",
            "attributes": {"id": {"type": "string"}, "name": {"type": "string"},
              "bio": {"type": "string", "key": "profile.bio"}, "user": {"type": "string", "key": "handle"}},
            "relationships": {"posts": {"destination": "Post", "toMany": true, "inverse": "user", "merge": "union"},
              "counts": {"destination": "Counts", "inverse": "user"}}},
          "Counts": {"primaryKey": "user", "attributes": {"followers": {"type": "integer"}},
            "relationships": {"user": {"destination": "User", "inverse": "counts"}}},
          "Tag": {"primaryKey": "name", "attributes": {"name": {"type": "string"}, "weight": {"type": "integer"}},
            "relationships": {"posts": {"destination": "Post", "toMany": true, "inverse": "tags", "merge": "union"}}},
          "Label": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}, "text": {"type": "string"}},
            "relationships": {"posts": {"destination": "Post", "toMany": true, "inverse": "labels", "merge": "union"}}},
          "Cover": {"attributes": {"url": {"type": "string"}, "w": {"type": "integer"}},
            "relationships": {"post": {"destination": "Post", "inverse": "cover"}}}
        }}
        """#

    /// Posts whose keyless `cover` is kept in the post's own row (no inverse), and whose keyless
    /// `banner` is kept in the banner's row (an inverse).
    public static let covers = #"""
        {"entities": {
          "Post": {"primaryKey": "id", "keyPathForResponseObject": "data",
            "attributes": {"id": {"type": "integer"}, "title": {"type": "string"}},
            "relationships": {"cover": {"destination": "Image"},
              "banner": {"destination": "Banner", "inverse": "post"}}},
          "Image": {"attributes": {"url": {"type": "string"}}},
          "Banner": {"attributes": {"url": {"type": "string"}},
            "relationships": {"post": {"destination": "Post", "inverse": "banner"}}}
        }}
        """#

    /// Shapes whose sub-entities have keyless and owner-keyed children.
    public static let shapes = #"""
        {"entities": {
          "Shape": {"primaryKey": "id", "keyPathForResponseObject": "data", "abstract": true,
            "subentities": {"key": "kind", "map": {"circle": "Circle", "square": "Square"}},
            "attributes": {"id": {"type": "integer"}, "kind": {"type": "string"}}},
          "Circle": {"parent": "Shape", "attributes": {"radius": {"type": "double"}},
            "relationships": {"style": {"destination": "Style", "inverse": "circle"},
              "frame": {"destination": "Frame"},
              "label": {"destination": "Label", "inverse": "circle"},
              "dots": {"destination": "Dot", "toMany": true, "inverse": "circle"}}},
          "Square": {"parent": "Shape", "attributes": {"side": {"type": "double"}}},
          "Style": {"attributes": {"color": {"type": "string"}},
            "relationships": {"circle": {"destination": "Circle", "inverse": "style"}}},
          "Frame": {"attributes": {"width": {"type": "integer"}}},
          "Label": {"primaryKey": "circle", "attributes": {"text": {"type": "string"}},
            "relationships": {"circle": {"destination": "Circle", "inverse": "label"}}},
          "Dot": {"attributes": {"x": {"type": "integer"}},
            "relationships": {"circle": {"destination": "Circle", "inverse": "dots"}}}
        }}
        """#

    /// Items with defaults, a non-optional attribute, json, key paths and candidate keys, and
    /// many kinds of relationship.
    public static let catalog = #"""
        {"entities": {
          "Item": {"primaryKey": "id", "keyPathForResponseObject": "data",
            "attributes": {"id": {"type": "integer"}, "name": {"type": "string", "optional": false},
              "n": {"type": "integer", "default": 3}, "level": {"type": "integer", "optional": false, "default": 1},
              "extra": {"type": "json"}, "bio": {"type": "string", "key": "profile.bio"},
              "pic": {"type": "string", "key": ["images.0", "image"]},
              "count": {"type": "integer", "key": ["stats.count", "count"]}},
            "relationships": {"owner": {"destination": "Owner", "inverse": "items"},
              "cover": {"destination": "Cover", "inverse": "item"},
              "tags": {"destination": "Tag", "toMany": true, "inverse": "items"},
              "marks": {"destination": "Mark", "toMany": true, "inverse": "item", "merge": "union"},
              "parts": {"destination": "Part", "toMany": true, "inverse": "item"},
              "stats": {"destination": "Stats", "inverse": "item"}}},
          "Owner": {"primaryKey": "id",
            "attributes": {"id": {"type": "string"}, "name": {"type": "string"}},
            "relationships": {"items": {"destination": "Item", "toMany": true, "inverse": "owner", "merge": "union"},
              "badge": {"destination": "Badge", "inverse": "owner"}}},
          "Badge": {"attributes": {"t": {"type": "string"}},
            "relationships": {"owner": {"destination": "Owner", "inverse": "badge"}}},
          "Cover": {"attributes": {"url": {"type": "string"}, "alt": {"type": "string", "default": "d"}},
            "relationships": {"item": {"destination": "Item", "inverse": "cover"},
              "thumb": {"destination": "Thumb", "inverse": "cover"}}},
          "Thumb": {"attributes": {"w": {"type": "integer"}},
            "relationships": {"cover": {"destination": "Cover", "inverse": "thumb"}}},
          "Tag": {"primaryKey": "name", "attributes": {"name": {"type": "string"}, "weight": {"type": "integer"}},
            "relationships": {"items": {"destination": "Item", "toMany": true, "inverse": "tags", "merge": "union"}}},
          "Mark": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}, "text": {"type": "string", "default": "m"}},
            "relationships": {"item": {"destination": "Item", "inverse": "marks"}}},
          "Part": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}, "label": {"type": "string"}},
            "relationships": {"item": {"destination": "Item", "inverse": "parts"}}},
          "Stats": {"primaryKey": "item", "attributes": {"views": {"type": "integer"}, "kind": {"type": "string", "default": "k"}},
            "relationships": {"item": {"destination": "Item", "inverse": "stats"}}}
        }}
        """#

    /// Accounts with ordered, united, many-to-many and one-to-one relationships (`AdversarialStreamTests4`).
    public static let accounts = #"""
        {"entities": {
          "Account": {"primaryKey": "id", "keyPathForResponseObject": "data",
            "attributes": {"id": {"type": "integer"}, "name": {"type": "string"}},
            "relationships": {
              "items": {"destination": "Item", "toMany": true, "ordered": true, "inverse": "account"},
              "uitems": {"destination": "UItem", "toMany": true, "ordered": true, "inverse": "account", "merge": "union"},
              "tags": {"destination": "Tag", "toMany": true, "ordered": true, "inverse": "accounts"},
              "utags": {"destination": "UTag", "toMany": true, "ordered": true, "inverse": "accounts", "merge": "union"},
              "zone": {"destination": "Zone", "inverse": "account"},
              "badge": {"destination": "AaBadge", "inverse": "account"}}},
          "Item": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}, "n": {"type": "string"}},
            "relationships": {"account": {"destination": "Account", "inverse": "items"}}},
          "UItem": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}, "n": {"type": "string"}},
            "relationships": {"account": {"destination": "Account", "inverse": "uitems"}}},
          "Tag": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}, "n": {"type": "string"}},
            "relationships": {"accounts": {"destination": "Account", "toMany": true, "ordered": true, "inverse": "tags"}}},
          "UTag": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}, "n": {"type": "string"}},
            "relationships": {"accounts": {"destination": "Account", "toMany": true, "inverse": "utags", "merge": "union"}}},
          "Zone": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}, "n": {"type": "string"}},
            "relationships": {"account": {"destination": "Account", "inverse": "zone"}}},
          "AaBadge": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}, "n": {"type": "string"}},
            "relationships": {"account": {"destination": "Account", "inverse": "badge"}}}
        }}
        """#

    /// A tree of nodes: `children` (ordered, replaced) and its inverse `parent`, and united `links` (`AdversarialStreamTests4`).
    public static let nodes = #"""
        {"entities": {
          "Node": {"primaryKey": "id", "keyPathForResponseObject": "data",
            "attributes": {"id": {"type": "integer"}, "name": {"type": "string", "optional": false}, "v": {"type": "integer"}},
            "relationships": {
              "children": {"destination": "Node", "toMany": true, "ordered": true, "inverse": "parent"},
              "parent": {"destination": "Node", "inverse": "children"},
              "links": {"destination": "Node", "toMany": true, "inverse": "backlinks", "merge": "union"},
              "backlinks": {"destination": "Node", "toMany": true, "inverse": "links", "merge": "union"}}}
        }}
        """#

    /// Shapes whose sub-entities have relationships of their own (`AdversarialStreamTests4`).
    public static let figures = #"""
        {"entities": {
          "Shape": {"primaryKey": "id", "keyPathForResponseObject": "data",
            "subentities": {"key": "kind", "map": {"circle": "Circle", "square": "Square"}},
            "attributes": {"id": {"type": "integer"}},
            "relationships": {"tags": {"destination": "Tag", "toMany": true, "ordered": true, "inverse": "shapes"}}},
          "Circle": {"parent": "Shape", "attributes": {"r": {"type": "integer"}},
            "relationships": {"pins": {"destination": "Pin", "toMany": true, "ordered": true, "inverse": "circle", "merge": "union"}}},
          "Square": {"parent": "Shape", "attributes": {"s": {"type": "integer"}},
            "relationships": {"corners": {"destination": "Corner", "toMany": true, "inverse": "squares"}}},
          "Tag": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}},
            "relationships": {"shapes": {"destination": "Shape", "toMany": true, "inverse": "tags", "merge": "union"}}},
          "Pin": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}},
            "relationships": {"circle": {"destination": "Circle", "inverse": "pins"}}},
          "Corner": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}},
            "relationships": {"squares": {"destination": "Square", "toMany": true, "inverse": "corners", "merge": "union"}}}
        }}
        """#

    /// A compound (JSON:API-shaped) schema: articles with people in `included` (`AdversarialStreamTests3`).
    public static let compound = #"""
        {"entities": {
          "Article": {"primaryKey": "id", "keyPathForResponseObject": "data",
            "included": [{"keyPath": "included", "key": "type", "map": {"people": "Person", "articles": "Article"}}],
            "attributes": {"id": {"type": "string"}, "title": {"type": "string"}},
            "relationships": {"author": {"destination": "Person", "key": "author.id", "inverse": "articles"}}},
          "Person": {"primaryKey": "id", "attributes": {"id": {"type": "string"}, "name": {"type": "string"}},
            "relationships": {"articles": {"destination": "Article", "toMany": true, "inverse": "author"}}}
        }}
        """#

    /// Items with a many-to-many `tags` and a one-to-many `parts` (`AdversarialResyncTests`).
    public static let joins = #"""
        {"entities": {
          "Item": {"primaryKey": "id", "keyPathForResponseObject": "data",
            "attributes": {"id": {"type": "integer"}},
            "relationships": {
              "parts": {"destination": "Part", "toMany": true, "inverse": "item"},
              "tags": {"destination": "Tag", "toMany": true, "inverse": "items"}}},
          "Part": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}},
            "relationships": {"item": {"destination": "Item", "inverse": "parts"}}},
          "Tag": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}},
            "relationships": {"items": {"destination": "Item", "toMany": true, "inverse": "tags"}}}
        }}
        """#
}
