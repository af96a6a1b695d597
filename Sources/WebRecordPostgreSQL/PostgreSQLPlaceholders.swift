/// SQLite's `?` placeholders in PostgreSQL's numbered form.
enum PostgreSQLPlaceholders {
    /// `text` with each `?` outside quotes (`'...'` strings and `"..."` identifiers) replaced by
    /// `$first`, `$first+1`, ... in order.
    static func numbered(_ text: String, from first: Int) -> String {
        var result = ""
        var number = first
        var quote: Character?
        for character in text {
            if let open = quote {
                if character == open { quote = nil }
                result.append(character)
            } else if character == "'" || character == "\"" {
                quote = character
                result.append(character)
            } else if character == "?" {
                result += "$\(number)"
                number += 1
            } else {
                result.append(character)
            }
        }
        return result
    }
}
