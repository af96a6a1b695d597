/// How a schema file's property names map to response keys when a property names no `key`:
/// the file's top-level `keyStyle` (`Docs/SchemaFormat.md`, "Key style").
///
/// With `snake_case`, the converted name is tried where the bare name is tried, just before
/// it: `createdAt` reads `created_at`, then `createdAt`. An explicit `key` still comes first.
enum KeyStyle: String, CaseIterable, Sendable {
    /// Property names are response keys as they are (the default).
    case asIs = "as-is"
    /// `createdAt` ↔ `created_at`, `avatarURL` ↔ `avatar_url`, `URLString` ↔ `url_string`.
    case snakeCase = "snake_case"

    /// The response key this style gives a property name.
    func key(for name: String) -> String {
        switch self {
        case .asIs: name
        case .snakeCase: Self.snakeCased(name)
        }
    }

    /// `name` in snake_case: a word starts at an uppercase letter after a lowercase letter or
    /// a digit, and at the last capital of a run of capitals followed by a lowercase letter
    /// (`URLString` → `url_string`); words are lowercased and joined by `_`. Underscores and
    /// digits stay where they are, so a name already in snake_case is unchanged.
    static func snakeCased(_ name: String) -> String {
        let characters = Array(name)
        var output = ""
        for (index, character) in characters.enumerated() {
            if character.isUppercase, index > 0 {
                let previous = characters[index - 1]
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                let startsWord =
                    previous.isLowercase || previous.isNumber
                    || (previous.isUppercase && next.map(\.isLowercase) == true)
                if startsWord, previous != "_" { output.append("_") }
            }
            output += character.lowercased()
        }
        return output
    }
}
