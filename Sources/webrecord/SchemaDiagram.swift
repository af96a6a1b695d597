import WebRecord

/// A picture of a schema: each entity with its key and attributes, each relationship with its
/// cardinality at both ends and its inverse, and each sub-entity's parent; as Mermaid (which code
/// hosts render) or Graphviz DOT.
///
/// An entity shows only what it declares; what it inherits is shown on its parent. A relationship
/// and its inverse are drawn once, as one line labelled `name / inverse`.
struct SchemaDiagram {
    enum Format: String, CaseIterable {
        case mermaid, dot
    }

    /// One line between two entities: a relationship, with its inverse when it has one.
    struct Link {
        var from: String
        var to: String
        var label: String
        /// How many `from` records one `to` record has: its inverse's cardinality, or any
        /// number when there is no inverse.
        var fromEnd: End
        /// How many `to` records one `from` record has.
        var toEnd: End
    }

    enum End {
        case zeroOrOne, exactlyOne, zeroOrMore
    }

    let schema: Schema

    func render(_ format: Format) -> String {
        switch format {
        case .mermaid: mermaid()
        case .dot: dot()
        }
    }

    /// The entity's own attributes, each with `PK` when it is part of the primary key.
    func attributes(of entity: Entity) -> [(type: String, name: String, isKey: Bool)] {
        let keyNames = entity.parentName == nil ? Set(entity.primaryKey?.propertyNames ?? []) : []
        return entity.attributes.filter { $0.entityName == entity.name }.map {
            ($0.type.rawValue, $0.name, keyNames.contains($0.name))
        }
    }

    /// Every relationship declared in the schema, a relationship and its inverse as one link.
    var links: [Link] {
        var links: [Link] = []
        for entity in schema.entities {
            for relationship in entity.relationships where relationship.entityName == entity.name {
                let inverse = relationship.inverse.flatMap {
                    schema.entity(named: relationship.destination)?.relationship(named: $0)
                }
                if let inverse, (relationship.destination, inverse.name) < (entity.name, relationship.name) {
                    continue  // drawn from the other side
                }
                let inverseName = inverse.map { " / " + name(of: $0, on: relationship.destination) } ?? ""
                let label = name(of: relationship, on: entity.name) + inverseName
                links.append(
                    Link(
                        from: entity.name, to: relationship.destination, label: label,
                        fromEnd: inverse.map(Self.end) ?? .zeroOrMore, toEnd: Self.end(of: relationship)))
            }
        }
        return links
    }

    /// The relationship's name, with ` (key)` when it identifies its entity's records.
    private func name(of relationship: Relationship, on entityName: String) -> String {
        guard let entity = schema.entity(named: entityName), entity.parentName == nil,
            entity.primaryKey?.propertyNames.contains(relationship.name) == true
        else { return relationship.name }
        return relationship.name + " (key)"
    }

    static func end(of relationship: Relationship) -> End {
        relationship.isToMany ? .zeroOrMore : (relationship.isOptional ? .zeroOrOne : .exactlyOne)
    }

    // MARK: - Mermaid

    func mermaid() -> String {
        var lines = ["erDiagram"]
        for entity in schema.entities {
            let attributes = attributes(of: entity)
            if attributes.isEmpty {
                lines.append("    \(entity.name)")
                continue
            }
            lines.append("    \(entity.name) {")
            for attribute in attributes {
                lines.append("        \(attribute.type) \(attribute.name)\(attribute.isKey ? " PK" : "")")
            }
            lines.append("    }")
        }
        for link in links {
            lines.append(
                "    \(link.from) \(Self.left(link.fromEnd))--\(Self.right(link.toEnd)) \(link.to) : \"\(link.label)\"")
        }
        for entity in schema.entities {
            if let parent = entity.parentName {
                lines.append("    \(entity.name) |o--|| \(parent) : \"is a\"")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func left(_ end: End) -> String {
        switch end {
        case .zeroOrOne: "|o"
        case .exactlyOne: "||"
        case .zeroOrMore: "}o"
        }
    }

    private static func right(_ end: End) -> String {
        switch end {
        case .zeroOrOne: "o|"
        case .exactlyOne: "||"
        case .zeroOrMore: "o{"
        }
    }

    // MARK: - DOT

    func dot() -> String {
        var lines = [
            "digraph Schema {", "    rankdir=LR;", #"    node [shape=record, fontname="Helvetica"];"#,
            #"    edge [fontname="Helvetica", dir=both];"#,
        ]
        for entity in schema.entities {
            let rows = attributes(of: entity).map { "\($0.name): \($0.type)\($0.isKey ? " (PK)" : "")\\l" }
            lines.append(#"    \#(entity.name) [label="{\#(entity.name)|\#(rows.joined())}"];"#)
        }
        for link in links {
            lines.append(
                #"    \#(link.from) -> \#(link.to) [label="\#(link.label)", arrowtail=\#(Self.arrow(link.fromEnd)), arrowhead=\#(Self.arrow(link.toEnd))];"#
            )
        }
        for entity in schema.entities {
            if let parent = entity.parentName {
                lines.append(
                    #"    \#(entity.name) -> \#(parent) [label="is a", style=dashed, arrowtail=none, arrowhead=empty];"#
                )
            }
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func arrow(_ end: End) -> String {
        switch end {
        case .zeroOrOne: "teeodot"
        case .exactlyOne: "teetee"
        case .zeroOrMore: "crowodot"
        }
    }
}
