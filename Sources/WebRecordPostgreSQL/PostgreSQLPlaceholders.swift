import WebRecord

/// SQLite's `?` placeholders in PostgreSQL's numbered form.
///
/// A `?` is a placeholder only where PostgreSQL reads it as SQL. The text is read as
/// PostgreSQL's lexer reads it, and a `?` stays as it is inside:
///
/// - a string `'...'`, where `''` is a quote (so are `B'...'`, `X'...'`, `N'...'` and `U&'...'`);
/// - an escape string `E'...'` or `e'...'`, where a backslash also escapes the character after
///   it (`E'\'?'` is one string holding `'?`);
/// - a string continued after whitespace holding a line end (`'a'` then `'b'` on the next
///   line), which keeps the kind of its first part;
/// - a dollar-quoted string `$$...$$` or `$tag$...$tag$`, a tag being a letter or `_` then
///   letters, digits and `_` (`$1` is a parameter, not a dollar quote);
/// - an identifier `"..."`, where `""` is a quote;
/// - a comment, `--` to the end of the line or `/* ... */`, which nests.
///
/// A `$` or an `E` inside a word (`price$`, `typee'...'`) is part of that word, as in
/// PostgreSQL. A string, identifier or comment that is not closed runs to the end of the text,
/// which is left as it is: the server then reports the error.
enum PostgreSQLPlaceholders {
    /// `text` with each `?` outside quotes and comments replaced by `$first`, `$first+1`, ...
    /// in order.
    static func numbered(_ text: String, from first: Int) -> String {
        read(text, from: first, likeAsSQLite: false).text
    }

    /// ``numbered(_:from:)``, for SQL written for both stores (a fetch's predicate, a query
    /// built on one):
    ///
    /// - Throws: `invalidArgument` when the text names, unquoted, one of the words PostgreSQL
    ///   reads as a function of the session and SQLite as a column (``sessionWords``):
    ///   `user = ?` compares the login role's name there, and would match nothing, with no
    ///   error, where SQLite compares the column `user`.
    static func numberedForBothStores(_ text: String, from first: Int) throws(WebRecordError) -> String {
        let reading = read(text, from: first, likeAsSQLite: true)
        if let word = reading.sessionWord {
            throw WebRecordError(
                .invalidArgument,
                "'\(word)' unquoted is PostgreSQL's \(word.lowercased() == "user" ? "current role name" : "session value \(word.lowercased())"), not a column, so the condition would not compare what it does on SQLite; write \"\(word)\" (quoted) for the column: \(text)"
            )
        }
        return reading.text
    }

    /// The keywords that end a `LIKE`'s pattern where they stand beside it (not inside its
    /// parentheses).
    static let patternEnds: Set<String> = [
        "and", "or", "then", "else", "when", "end", "order", "group", "limit", "offset", "having", "union",
        "except", "intersect", "is", "asc", "desc", "window", "returning", "from", "where", "on", "using", "fetch",
        "for", "not",
    ]

    /// The words PostgreSQL reads, unquoted, as a value of the session (`user` is
    /// `current_user`), where SQLite reads a column of that name.
    static let sessionWords: Set<String> = [
        "user", "current_user", "session_user", "current_role", "current_catalog", "current_schema", "system_user",
    ]

    /// `text` numbered from `first`, and the first of ``sessionWords`` it holds unquoted and not
    /// after a `.` (`t.user` is a column). With `likeAsSQLite`, each unquoted `LIKE` becomes
    /// `ILIKE`: SQLite's `LIKE` ignores the case of ASCII letters, and so does PostgreSQL's
    /// `ILIKE` on the store's `COLLATE "C"` text (its `LIKE` does not).
    private static func read(_ text: String, from first: Int, likeAsSQLite: Bool) -> (
        text: String, sessionWord: String?
    ) {
        let scalars = Array(text.unicodeScalars)
        var sessionWord: String?
        var result = String.UnicodeScalarView()
        // The last character read as SQL before the current word: not whitespace, not a comment.
        var lastSignificant: Unicode.Scalar?
        // Whether the word being read follows a `.` (`t.user`, `t . /* c */ user`: a column).
        var wordFollowsDot = false
        // The parentheses open where the reading is.
        var depth = 0
        // With `likeAsSQLite`, a `LIKE` whose pattern is being read: the depth it is at, and
        // where in `result` its pattern starts. SQLite's `LIKE` has no escape character, and
        // PostgreSQL's takes a backslash for one: the pattern gets `ESCAPE ''` where it ends,
        // unless the condition gives its own `ESCAPE`.
        var pattern: (depth: Int, start: Int)?
        // Where in `result` the last scalar read as SQL (not whitespace, not a comment) ends, and
        // where it ended when the word being read started.
        var significantEnd = 0
        var significantEndBeforeWord = 0
        // Ends the pattern being read, if any, at `position` of `result`: after the last scalar
        // of the pattern read as SQL, before any whitespace or comment that follows it.
        func endPattern(at position: Int) {
            guard pattern != nil else { return }
            let escape = " ESCAPE ''".unicodeScalars
            result.insert(contentsOf: escape, at: result.index(result.startIndex, offsetBy: position))
            if significantEnd >= position { significantEnd += escape.count }
            pattern = nil
        }
        // Called when the word from `start` to `end` has just been copied to `result`.
        func noteWord(_ start: Int, _ end: Int) {
            let word = String(String.UnicodeScalarView(scalars[start..<end]))
            let lowercased = word.lowercased()
            if let open = pattern, open.depth == depth, !wordFollowsDot {
                if lowercased == "escape" {
                    pattern = nil
                } else if patternEnds.contains(lowercased), significantEndBeforeWord > open.start {
                    endPattern(at: significantEndBeforeWord)
                }
            }
            guard lowercased == "like" || sessionWords.contains(lowercased), !wordFollowsDot else { return }
            if lowercased == "like" {
                if likeAsSQLite {
                    endPattern(at: significantEndBeforeWord)
                    result.insert("I", at: result.index(result.endIndex, offsetBy: -4))
                    significantEnd += 1
                    pattern = (depth, result.count)
                }
            } else if sessionWord == nil {
                sessionWord = word
            }
        }
        var number = first
        var index = 0
        // Where the word (an identifier or a keyword) the reading is in started, if it is in one.
        var wordStart: Int?
        while index < scalars.count {
            let scalar = scalars[index]
            let next = index + 1 < scalars.count ? scalars[index + 1] : nil
            var end = index + 1
            var word: Int?
            switch scalar {
            case "?":
                if let start = wordStart { noteWord(start, index) }
                lastSignificant = "?"
                result += "$\(number)".unicodeScalars
                significantEnd = result.count
                number += 1
                index = end
                wordStart = nil
                continue
            case "'":
                let isEscapeString = wordStart == index - 1 && (scalars[index - 1] == "E" || scalars[index - 1] == "e")
                end = stringEnd(scalars, from: index, backslashEscapes: isEscapeString)
            case "\"":
                end = quotedEnd(scalars, from: index + 1, quote: "\"", backslashEscapes: false)
            case "-" where next == "-":
                end = lineCommentEnd(scalars, from: index)
            case "/" where next == "*":
                end = blockCommentEnd(scalars, from: index)
            case "$" where wordStart == nil:
                end = dollarQuoteEnd(scalars, from: index) ?? end
            case "(":
                depth += 1
            case ")", ",", ";":
                if let start = wordStart { noteWord(start, index) }
                wordStart = nil
                // A `)` closing what holds the `LIKE`, or a `,` or `;` beside it, ends its pattern.
                if let open = pattern, open.depth == depth { endPattern(at: significantEnd) }
                if scalar == ")" { depth -= 1 }
            default:
                if wordStart != nil, isWordPart(scalar) {
                    word = wordStart
                } else if isWordStart(scalar) {
                    word = index
                }
            }
            if let start = wordStart, word == nil { noteWord(start, index) }
            if word == index {
                wordFollowsDot = lastSignificant == "."
                significantEndBeforeWord = significantEnd
            }
            let isComment = (scalar == "-" && next == "-") || (scalar == "/" && next == "*")
            result.append(contentsOf: scalars[index..<end])
            if !isComment, !scalar.properties.isWhitespace {
                lastSignificant = scalars[end - 1]
                significantEnd = result.count
            }
            index = end
            wordStart = word
        }
        if let start = wordStart { noteWord(start, scalars.count) }
        endPattern(at: significantEnd)
        return (String(result), sessionWord)
    }

    /// The end of the string, and of its continuations, whose opening quote is at `start`.
    private static func stringEnd(_ scalars: [Unicode.Scalar], from start: Int, backslashEscapes: Bool) -> Int {
        var end = quotedEnd(scalars, from: start + 1, quote: "'", backslashEscapes: backslashEscapes)
        while end < scalars.count, let quote = continuationQuote(scalars, from: end) {
            end = quotedEnd(scalars, from: quote + 1, quote: "'", backslashEscapes: backslashEscapes)
        }
        return end
    }

    /// The index after the `quote` that closes the quoted text read from `start` (just after
    /// its opening quote), a doubled `quote` being a quote; the end of the text when none does.
    private static func quotedEnd(
        _ scalars: [Unicode.Scalar], from start: Int, quote: Unicode.Scalar, backslashEscapes: Bool
    ) -> Int {
        var index = start
        while index < scalars.count {
            let scalar = scalars[index]
            if backslashEscapes && scalar == "\\" {
                index += 2
            } else if scalar == quote {
                guard index + 1 < scalars.count, scalars[index + 1] == quote else { return index + 1 }
                index += 2
            } else {
                index += 1
            }
        }
        return scalars.count
    }

    /// The index of the quote that continues a string ending at `start`: the first character
    /// after whitespace holding a line end (comments count as whitespace), when it is `'`.
    private static func continuationQuote(_ scalars: [Unicode.Scalar], from start: Int) -> Int? {
        var index = start
        var sawLineEnd = false
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\n" || scalar == "\r" {
                sawLineEnd = true
                index += 1
            } else if scalar == " " || scalar == "\t" || scalar == "\u{0C}" || (sawLineEnd && scalar == "\u{0B}") {
                index += 1
            } else if scalar == "-", index + 1 < scalars.count, scalars[index + 1] == "-" {
                index = lineCommentEnd(scalars, from: index)
            } else {
                break
            }
        }
        return sawLineEnd && index < scalars.count && scalars[index] == "'" ? index : nil
    }

    /// The index of the line end that closes the `--` comment at `start` (the line end is not
    /// part of the comment), or the end of the text.
    private static func lineCommentEnd(_ scalars: [Unicode.Scalar], from start: Int) -> Int {
        scalars[start...].firstIndex { $0 == "\n" || $0 == "\r" } ?? scalars.count
    }

    /// The index after the `*/` that closes the `/*` comment at `start` and every comment
    /// nested in it, or the end of the text.
    private static func blockCommentEnd(_ scalars: [Unicode.Scalar], from start: Int) -> Int {
        var depth = 0
        var index = start
        while index + 1 < scalars.count {
            if scalars[index] == "/" && scalars[index + 1] == "*" {
                depth += 1
                index += 2
            } else if scalars[index] == "*" && scalars[index + 1] == "/" {
                depth -= 1
                index += 2
                if depth == 0 { return index }
            } else {
                index += 1
            }
        }
        return scalars.count
    }

    /// The index after the delimiter that closes the dollar-quoted string whose opening
    /// delimiter (`$$` or `$tag$`) is at `start`; the end of the text when none does; nil when
    /// the `$` at `start` opens no dollar quote (a parameter `$1`, a lone `$`).
    private static func dollarQuoteEnd(_ scalars: [Unicode.Scalar], from start: Int) -> Int? {
        var index = start + 1
        if index < scalars.count, isWordStart(scalars[index]) {
            index += 1
            while index < scalars.count, isWordStart(scalars[index]) || ("0"..."9").contains(scalars[index]) {
                index += 1
            }
        }
        guard index < scalars.count, scalars[index] == "$" else { return nil }
        let delimiter = scalars[start...index]
        var candidate = index + 1
        while candidate + delimiter.count <= scalars.count {
            if scalars[candidate..<candidate + delimiter.count].elementsEqual(delimiter) {
                return candidate + delimiter.count
            }
            candidate += 1
        }
        return scalars.count
    }

    /// Whether `scalar` can start an identifier: an ASCII letter, `_` or any non-ASCII character.
    private static func isWordStart(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || scalar == "_" || !scalar.isASCII
    }

    /// Whether `scalar` can continue an identifier: what can start one, a digit or `$`.
    private static func isWordPart(_ scalar: Unicode.Scalar) -> Bool {
        isWordStart(scalar) || ("0"..."9").contains(scalar) || scalar == "$"
    }
}
