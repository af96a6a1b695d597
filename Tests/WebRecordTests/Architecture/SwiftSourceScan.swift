/// A Swift source file split into its code and its string literals, comments dropped: what the
/// architecture tests scan for the names a file uses and the SQL it holds.
///
/// In `code`, each string literal (raw and multi-line ones included) is replaced by `""`;
/// `literals` holds their contents, escapes as written.
struct SwiftSourceScan {
    var code = ""
    var literals: [String] = []

    init(_ text: String) {
        let characters = Array(text)
        var index = 0
        func at(_ offset: Int) -> Character? { index + offset < characters.count ? characters[index + offset] : nil }
        while index < characters.count {
            let character = characters[index]
            if character == "/", at(1) == "/" {
                while index < characters.count, characters[index] != "\n" { index += 1 }
            } else if character == "/", at(1) == "*" {
                index += 2
                while index < characters.count, !(characters[index] == "*" && at(1) == "/") { index += 1 }
                index += 2
            } else if character == "\"" || (character == "#" && (at(1) == "\"" || at(1) == "#")) {
                var hashes = 0
                while at(0) == "#" {
                    hashes += 1
                    index += 1
                }
                guard at(0) == "\"" else {
                    code += String(repeating: "#", count: hashes)
                    continue
                }
                let quotes = at(1) == "\"" && at(2) == "\"" ? 3 : 1
                index += quotes
                let closing = Array(String(repeating: "\"", count: quotes) + String(repeating: "#", count: hashes))
                var literal = ""
                while index < characters.count {
                    if hashes == 0, characters[index] == "\\" {
                        literal.append(characters[index])
                        if let next = at(1) { literal.append(next) }
                        index += 2
                        continue
                    }
                    if Array(characters[index..<min(index + closing.count, characters.count)]) == closing {
                        index += closing.count
                        break
                    }
                    literal.append(characters[index])
                    index += 1
                }
                literals.append(literal)
                code += "\"\""
            } else {
                code.append(character)
                index += 1
            }
        }
    }
}
