/// Keys of different types in sibling sub-entities (`parentID` an integer, `childID` a
/// string), a sub-entity that inherits its parent's key (`Grandparent`), and another
/// entity that refers to a keyed sub-entity by key (`Toy.owner`).
public let subentityKeySchemaJSON = """
    {"entities": {
      "Human": {"abstract": true,
        "subentities": {"key": "kind", "map": {"parent": "Parent", "grandparent": "Grandparent", "child": "Child"}},
        "attributes": {"name": {"type": "string", "optional": true}}},
      "Parent": {"parent": "Human", "primaryKey": "parentID",
        "attributes": {"parentID": {"type": "integer"}},
        "relationships": {"children": {"destination": "Child", "toMany": true, "inverse": "father"}}},
      "Grandparent": {"parent": "Parent", "attributes": {"title": {"type": "string", "optional": true}}},
      "Child": {"parent": "Human", "primaryKey": "childID",
        "attributes": {"childID": {"type": "string"}},
        "relationships": {"father": {"destination": "Parent", "inverse": "children"},
          "toys": {"destination": "Toy", "toMany": true, "inverse": "owner", "merge": "union"}}},
      "Toy": {"primaryKey": "id", "attributes": {"id": {"type": "integer"}, "label": {"type": "string", "optional": true}},
        "relationships": {"owner": {"destination": "Child", "inverse": "toys"}}}
    }}
    """

/// Children that name their fathers by key, some before the father arrives, a father and a
/// child that share the text of their keys, and a parent repeated.
public let subentityKeyFamilyJSON = """
    [
      {"kind": "child", "childID": "c1", "name": "Ann", "father": 7},
      {"kind": "child", "childID": "c2", "name": "Ben", "father": 7},
      {"kind": "parent", "parentID": 7, "name": "Dad"},
      {"kind": "child", "childID": "7", "name": "Seven", "father": 8},
      {"kind": "grandparent", "parentID": 8, "name": "Grandpa", "title": "Sir"},
      {"kind": "parent", "parentID": 7, "name": "Dad"}
    ]
    """

/// Stripe-shaped payment methods chosen by `type`: a `Card` with its brand, last four digits
/// and issuing bank, a `SepaDebit`, and charges that nest the method they were paid by.
public let unmappedDiscriminatorSchemaJSON = """
    {"entities": {
      "PaymentMethod": {"primaryKey": "id",
        "subentities": {"key": "type", "map": {"card": "Card", "sepa_debit_v1": "SepaDebit"}},
        "attributes": {"id": {"type": "string"}, "type": {"type": "string", "optional": true}}},
      "Card": {"parent": "PaymentMethod",
        "attributes": {"brand": {"type": "string", "optional": true}, "last4": {"type": "string", "optional": true}},
        "relationships": {"issuer": {"destination": "Bank", "inverse": "cards"}}},
      "SepaDebit": {"parent": "PaymentMethod", "attributes": {"iban": {"type": "string", "optional": true}}},
      "Bank": {"primaryKey": "name", "attributes": {"name": {"type": "string"}},
        "relationships": {"cards": {"destination": "Card", "toMany": true, "inverse": "issuer"}}},
      "Charge": {"primaryKey": "id", "attributes": {"id": {"type": "string"}},
        "relationships": {"paymentMethod": {"destination": "PaymentMethod", "key": "payment_method"}}}
    }}
    """

/// Two cards, with their brands, last four digits and bank.
public let storedCardsJSON = """
    [{"id": "pm_1", "type": "card", "brand": "visa", "last4": "4242", "issuer": {"name": "Chase"}},
     {"id": "pm_2", "type": "card", "brand": "amex", "last4": "0005", "issuer": "Chase"}]
    """

/// The same methods as a type the schema does not map, `pm_1` named twice.
public let unmappedMethodsJSON = """
    [{"id": "pm_1", "type": "sepa_debit"}, {"id": "pm_2", "type": "sepa_debit"}, {"id": "pm_1", "type": "sepa_debit"}]
    """
