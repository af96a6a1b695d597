/// The schema of the link-delete sparing tests (library, CLI and PostgreSQL): folders whose
/// children and tags cascade, a union list that names folders without owning them, a deny rule
/// (locks), a record identified by its folder (`Info`), and a hierarchy whose `Box` has a
/// label identified by it, whose notes cascade.
public let linkDeleteSchemaJSON = """
    {"entities": {
      "Folder": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}, "name": {"type": "string"}},
        "relationships": {
          "children": {"destination": "Folder", "toMany": true, "inverse": "parent", "deleteRule": "cascade"},
          "parent": {"destination": "Folder", "inverse": "children"},
          "tags": {"destination": "Tag", "toMany": true, "inverse": "folders", "deleteRule": "cascade"},
          "see": {"destination": "Folder", "toMany": true, "inverse": "seenBy", "merge": "union"},
          "seenBy": {"destination": "Folder", "toMany": true, "inverse": "see", "merge": "union"},
          "locks": {"destination": "Lock", "toMany": true, "inverse": "folder", "deleteRule": "deny"},
          "info": {"destination": "Info", "inverse": "folder"},
          "pinned": {"destination": "Info", "inverse": "pinnedBy"}}},
      "Tag": {"primaryKey": "id", "attributes": {"id": {"type": "string"}},
        "relationships": {"folders": {"destination": "Folder", "toMany": true, "inverse": "tags"}}},
      "Lock": {"primaryKey": "id", "attributes": {"id": {"type": "string"}},
        "relationships": {"folder": {"destination": "Folder", "inverse": "locks"}}},
      "Info": {"primaryKey": "folder", "attributes": {"size": {"type": "integer"}},
        "relationships": {
          "folder": {"destination": "Folder", "inverse": "info"},
          "pinnedBy": {"destination": "Folder", "toMany": true, "inverse": "pinned"}}},
      "Item": {"primaryKey": "id", "subentities": {"key": "kind", "map": {"box": "Box", "bag": "Bag"}},
        "attributes": {"id": {"type": "integer"}},
        "relationships": {"pins": {"destination": "Note", "toMany": true, "inverse": "pinnedBy", "merge": "union"}}},
      "Box": {"parent": "Item", "relationships": {"label": {"destination": "Label", "inverse": "box"}}},
      "Bag": {"parent": "Item"},
      "Label": {"primaryKey": "box", "attributes": {"text": {"type": "string"}},
        "relationships": {
          "box": {"destination": "Box", "inverse": "label"},
          "notes": {"destination": "Note", "toMany": true, "inverse": "label", "deleteRule": "cascade"}}},
      "Note": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}},
        "relationships": {
          "label": {"destination": "Label", "inverse": "notes"},
          "pinnedBy": {"destination": "Item", "toMany": true, "inverse": "pins"}}}
    }}
    """
