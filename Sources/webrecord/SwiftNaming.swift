/// How `generate-swift` turns schema names into Swift names (Docs/Records.md, "Generated
/// classes").
///
/// - A name is split into words at every character that cannot be in an ASCII Swift identifier
///   and at `_`; the words are joined in camel case, lower for properties (`thread_id` →
///   `threadID`) and upper for classes. A word that is a common initialism (`id`, `url`,
///   `json`…) is written in capitals after the first word. A name that starts with a digit gets
///   a leading `_`.
/// - A property named like a Swift keyword is escaped with backticks (`` `default` ``), which are
///   written only where it is declared: `issue.default` reads as usual.
/// - A property named like a member that `Record` already has (`entity`, `rowID`, `related`…),
///   or one that would mean something else after a dot (`self`, `init`, `Type`…), is renamed
///   with the suffix `Attribute` or `Relationship`: `entityAttribute`.
/// - Two properties or classes that end up with one name are told apart by a number.
///
/// The generated code names each renaming in the property's doc comment.
enum SwiftNaming {
    /// Swift's keywords, which a declaration escapes with backticks.
    static let keywords: Set<String> = [
        "associatedtype", "borrowing", "class", "consuming", "deinit", "enum", "extension", "fileprivate", "func",
        "import", "init", "inout", "internal", "let", "nonisolated", "open", "operator", "package", "private",
        "precedencegroup", "protocol", "public", "rethrows", "static", "struct", "subscript", "typealias", "var",
        "break", "case", "catch", "continue", "default", "defer", "do", "else", "fallthrough", "for", "guard",
        "if", "in", "repeat", "return", "throw", "switch", "where", "while", "Any", "as", "await", "false", "is",
        "nil", "self", "Self", "super", "throws", "true", "try",
    ]

    /// Names a property cannot usefully have: after a dot they mean something else, backticks or not.
    static let reservedMemberNames: Set<String> = [
        "self", "Self", "init", "deinit", "subscript", "super", "Type", "Protocol", "_",
    ]

    /// The members every `Record` has, which a property of a generated class must not shadow:
    /// its stored values, its hooks for subclasses, navigation, decoding and requests. A test
    /// checks this list against the members `Record` declares.
    static let recordMemberNames: Set<String> = [
        "entity", "rowID", "storedValues", "store", "storedRow", "entityName", "keyPathForResponseObject",
        "subentityName", "recordDetailURN", "jsonValue", "primaryKeyValue", "related", "relatedRecords", "decode",
        "debugDescription", "loggingLevel", "logHandler", "startRequest", "startRequestForResult",
        "startRequestFetchingFirst", "startDetailRequest", "startPagedRequest", "refresh", "pages", "observe",
    ]

    /// Initialisms written in capitals when they are not the first word of a property (and
    /// always in a class name); a plural keeps its `s` small: `ids` → `IDs`.
    static let initialisms: Set<String> = [
        "id", "url", "uri", "uuid", "json", "html", "http", "https", "api", "ip", "xml", "sql",
    ]

    /// The modules generated code names types of: a class of one of these names would hide it.
    static let moduleNames: Set<String> = ["Swift", "Foundation", "WebRecord"]

    /// `word` in capitals when it is an initialism or the plural of one; nil otherwise.
    static func initialism(_ word: String) -> String? {
        let lower = word.lowercased()
        if initialisms.contains(lower) { return lower.uppercased() }
        if lower.hasSuffix("s"), initialisms.contains(String(lower.dropLast())) {
            return lower.dropLast().uppercased() + "s"
        }
        return nil
    }

    /// The words of a schema name: runs of ASCII letters and digits, split at other characters,
    /// where a lower-case letter or digit is followed by an upper-case one, and before the last
    /// capital of an initialism that a lower-case letter follows.
    static func words(of name: String) -> [String] {
        var words: [String] = []
        var current = ""
        var previous: Character?
        for character in name {
            guard character.isASCII, character.isLetter || character.isNumber else {
                if !current.isEmpty { words.append(current) }
                current = ""
                previous = nil
                continue
            }
            if let previous, character.isUppercase, previous.isLowercase || previous.isNumber {
                words.append(current)
                current = ""
            } else if let previous, character.isLowercase, previous.isUppercase, current.count >= 2,
                current.dropLast().last?.isUppercase == true
            {
                // The end of an initialism: `URLPath` is `URL` and `Path`.
                words.append(String(current.dropLast()))
                current = String(previous)
            }
            current.append(character)
            previous = character
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// The camel-case identifier for a schema name: `lower` for properties, upper for classes.
    /// Nil when the name has no ASCII letter or digit at all.
    static func identifier(for name: String, upper: Bool) -> String? {
        let parts = words(of: name)
        guard !parts.isEmpty else { return nil }
        var result = ""
        for (index, word) in parts.enumerated() {
            if index == 0, !upper {
                // A property's first word keeps its case after its first letter; an
                // all-capitals first word is lowered whole (`URL` → `url`).
                result += loweringLeadingCapitals(word)
            } else if let capitals = initialism(word) {
                result += capitals
            } else {
                result += capitalizingFirst(word)
            }
        }
        if let first = result.first, first.isNumber { result = "_" + result }
        return result
    }

    private static func capitalizingFirst(_ word: String) -> String {
        word.prefix(1).uppercased() + word.dropFirst()
    }

    /// `URL` → `url`, `URLPath` is split before it reaches here; `Name` → `name`.
    private static func loweringLeadingCapitals(_ word: String) -> String {
        if word.allSatisfy({ $0.isUppercase || $0.isNumber }) { return word.lowercased() }
        return word.prefix(1).lowercased() + word.dropFirst()
    }

    /// `name` as written in a declaration: escaped with backticks when it is a keyword.
    static func declared(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }
}
