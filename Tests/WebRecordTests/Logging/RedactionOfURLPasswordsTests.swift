import Foundation
import Testing

@testable import WebRecord

/// A URL's password is redacted whatever it holds: the user information runs to the `@` a URL
/// parser (or libpq) ends it at, not to the first `@`, and a `/`, `?` or `#` in it does not
/// stop the redaction; a conninfo value in quotes is redacted to its closing quote.
@Suite struct RedactionOfURLPasswordsTests {
    static let secret = "Pw9Secret"

    /// Passwords written unencoded in URLs of every scheme, and what the redaction shows.
    static let urls: [(text: String, redacted: String)] = [
        ("https://me:a@\(secret)@api.example.com/x", "https://me:<redacted>@api.example.com/x"),
        ("https://me:a/\(secret)@api.example.com/x", "https://me:<redacted>@api.example.com/x"),
        ("https://me:a?\(secret)@api.example.com/x", "https://me:<redacted>@api.example.com/x"),
        ("https://me:a#\(secret)@api.example.com/x", "https://me:<redacted>@api.example.com/x"),
        ("https://me:a:\(secret)@api.example.com/x", "https://me:<redacted>@api.example.com/x"),
        ("https://me:a%\(secret)@api.example.com/x", "https://me:<redacted>@api.example.com/x"),
        ("postgresql://postgres:Raw@\(secret)@/nosuch", "postgresql://postgres:<redacted>@/nosuch"),
        ("postgresql://postgres:Raw/\(secret)@localhost/nosuch", "postgresql://postgres:<redacted>@localhost/nosuch"),
    ]

    @Test(arguments: urls.map(\.text))
    func aPasswordIsRedactedInFreeTextWhateverItHolds(url: String) throws {
        let expected = try #require(Self.urls.first { $0.text == url }?.redacted)
        #expect(Redaction.redacted("could not reach \(url): refused") == "could not reach \(expected): refused")
        #expect(Redaction.redacted(url: url) == expected)
        let error = WebRecordError(.serverError, "could not reach \(url)")
        #expect(!error.description.contains(Self.secret), "\(error.description)")
    }

    @Test func aPasswordWithASpaceIsRedactedInAWholeURL() {
        let url = "postgresql://postgres:Raw \(Self.secret)@localhost/nosuch"
        #expect(Redaction.redacted(url: url) == "postgresql://postgres:<redacted>@localhost/nosuch")
    }

    @Test func aRedactedPasswordStaysAsItIsAndURLsWithoutOneAreUntouched() {
        for text in [
            "https://me:<redacted>@api.example.com/x", "https://me:%3Credacted%3E@api.example.com/x",
            "https://medium.com/@user", "mail me at me@example.com", "https://api.example.com/x?q=a@b",
            "https://u@api.example.com/x", "a: b @ c",
        ] {
            #expect(Redaction.redacted(text) == text, "\(text)")
        }
    }

    @Test(arguments: ["a b@c", "a\\'b", "a=b", "a#b&c", ""])
    func aQuotedConninfoValueIsRedactedToItsClosingQuote(value: String) {
        let text = "cannot connect: host=/tmp password='\(Self.secret)\(value)' user=postgres"
        #expect(Redaction.redacted(text) == "cannot connect: host=/tmp password=<redacted> user=postgres")
    }
}
