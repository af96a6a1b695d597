/// An HTTP `Link` header (RFC 8288), parsed by its grammar.
///
/// The header is a comma-separated list of `<URI-Reference>` followed by `;`-separated
/// parameters, each a token with an optional value that is a token or a quoted string. A
/// target may itself contain commas and semicolons (`<https://api.example.com/items?ids=1,2;x>`),
/// and so may a quoted value; neither splits the list. A `rel` value is a space-separated list
/// of relation types, compared case-insensitively.
struct LinkHeader: Sendable, Hashable {
    /// One link: its target as written and its parameters, names lower-cased, in order.
    struct Link: Sendable, Hashable {
        /// The target URI reference, as written between `<` and `>`.
        var target: String
        /// The parameters, `(name, value)`, names lower-cased; a value is nil when none was given.
        var parameters: [(name: String, value: String?)]

        /// The relation types of the `rel` parameter (the first one, as RFC 8288 §3.3 says), lower-cased.
        var relations: [String] {
            guard let rel = parameters.first(where: { $0.name == "rel" })?.value else { return [] }
            return rel.split(whereSeparator: { $0 == " " || $0 == "\t" }).map { $0.lowercased() }
        }

        static func == (lhs: Link, rhs: Link) -> Bool {
            lhs.target == rhs.target
                && lhs.parameters.elementsEqual(rhs.parameters) { $0.name == $1.name && $0.value == $1.value }
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(target)
            for parameter in parameters {
                hasher.combine(parameter.name)
                hasher.combine(parameter.value)
            }
        }
    }

    /// The links, in header order. A malformed element is skipped up to the next comma that
    /// is outside a target and a quoted string.
    var links: [Link]

    /// Parses a header value.
    init(_ value: String) {
        links = Self.parse(Array(value.unicodeScalars))
    }

    /// The target of the first link whose `rel` includes `relation` (such as `next`).
    func target(relation: String) -> String? {
        let relation = relation.lowercased()
        return links.first { $0.relations.contains(relation) }?.target
    }

    // MARK: - Parsing

    private static func parse(_ scalars: [Unicode.Scalar]) -> [Link] {
        var links: [Link] = []
        var index = 0
        func skipWhitespace() {
            while index < scalars.count, scalars[index] == " " || scalars[index] == "\t" { index += 1 }
        }
        /// Skips to just after the next list comma outside quotes and brackets.
        func skipElement() {
            var quoted = false
            while index < scalars.count {
                let scalar = scalars[index]
                index += 1
                if quoted {
                    if scalar == "\\" { index += 1 } else if scalar == "\"" { quoted = false }
                } else if scalar == "\"" {
                    quoted = true
                } else if scalar == "," {
                    return
                }
            }
        }
        func token() -> String {
            var text = String.UnicodeScalarView()
            while index < scalars.count, !";,= \t\"".unicodeScalars.contains(scalars[index]) {
                text.append(scalars[index])
                index += 1
            }
            return String(text)
        }
        while index < scalars.count {
            skipWhitespace()
            if index < scalars.count, scalars[index] == "," {
                index += 1
                continue
            }
            guard index < scalars.count, scalars[index] == "<" else {
                skipElement()
                continue
            }
            index += 1
            var target = String.UnicodeScalarView()
            while index < scalars.count, scalars[index] != ">" {
                target.append(scalars[index])
                index += 1
            }
            guard index < scalars.count else { break }  // no closing '>': not a link
            index += 1
            var parameters: [(name: String, value: String?)] = []
            while true {
                skipWhitespace()
                guard index < scalars.count, scalars[index] == ";" else { break }
                index += 1
                skipWhitespace()
                let name = token().lowercased()
                skipWhitespace()
                var value: String?
                if index < scalars.count, scalars[index] == "=" {
                    index += 1
                    skipWhitespace()
                    if index < scalars.count, scalars[index] == "\"" {
                        index += 1
                        var quoted = String.UnicodeScalarView()
                        while index < scalars.count, scalars[index] != "\"" {
                            if scalars[index] == "\\", index + 1 < scalars.count { index += 1 }
                            quoted.append(scalars[index])
                            index += 1
                        }
                        index += 1
                        value = String(quoted)
                    } else {
                        value = token()
                    }
                }
                if !name.isEmpty { parameters.append((name, value)) }
            }
            links.append(Link(target: String(target), parameters: parameters))
            skipElement()
        }
        return links
    }
}
