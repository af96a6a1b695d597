import Foundation

/// Reads and writes decimals as WebRecord stores them: canonical decimal text.
package enum DecimalCoding {
    static func string(from decimal: Decimal) -> String {
        var value = decimal
        return NSDecimalString(&value, Locale(identifier: "en_US_POSIX"))
    }

    /// The decimal `text` denotes, exactly, or nil: text that is not a number (`"+-5"`,
    /// `"1.2.3"`), and numbers that `Decimal` cannot hold exactly (more than 38 significant
    /// digits, or an exponent out of its range), are refused rather than rounded.
    package static func decimal(from text: String) -> Decimal? {
        guard let parts = JSONNumberText.parts(of: text) else { return nil }
        if parts.digits.isEmpty { return Decimal(0) }
        guard parts.digits.count <= 38, parts.exponent >= -128, parts.exponent <= 127 else { return nil }
        let canonical =
            (parts.negative ? "-" : "") + String(decoding: parts.digits.map { $0 + 48 }, as: UTF8.self)
            + "e" + String(parts.exponent)
        guard let decimal = Decimal(string: canonical, locale: Locale(identifier: "en_US_POSIX")), !decimal.isNaN,
            JSONNumberText.parts(of: string(from: decimal)) == parts
        else { return nil }
        return decimal
    }
}
