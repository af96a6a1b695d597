import Foundation
import WebRecord

/// `populate`'s paging flags: `--paginate`, `--max-pages` and `--delete-orphans`.
struct PagingArguments {
    var pagination: Pagination?
    var maximumPages: Int?
    var deleteOrphans: Bool
    var showsProgress: Bool

    /// Reads the flags.
    ///
    /// - Throws: ``UsageError`` for an unknown pagination kind or a page count that is not a
    ///   positive integer.
    init(paginate: String?, maxPages: String?, deleteOrphans: Bool, showsProgress: Bool) throws {
        if let paginate {
            guard let pagination = Self.pagination(specification: paginate) else {
                throw UsageError(
                    message:
                        "invalid --paginate '\(paginate)'; expected next-url:KEYPATH[:TOTALKEYPATH], link-header, cursor:KEYPATH:PARAM[:TOTALKEYPATH], has-more:FLAGKEYPATH:KEYPATH:PARAM[:TOTALKEYPATH], page:PARAM[:TOTALKEYPATH] or offset:PARAM:LIMITPARAM:LIMIT[:TOTALKEYPATH]",
                    command: PopulateCommand.spec)
            }
            self.pagination = pagination
        }
        if let maxPages {
            guard let count = Int(maxPages), count > 0 else {
                throw UsageError(
                    message: "invalid --max-pages '\(maxPages)'; expected a positive integer",
                    command: PopulateCommand.spec)
            }
            maximumPages = count
        }
        self.deleteOrphans = deleteOrphans
        self.showsProgress = showsProgress
    }
}

extension PagingArguments {
    /// Reads a `--paginate` value as the library's ``Pagination``.
    ///
    /// - Parameter specification: `next-url:KEYPATH[:TOTALKEYPATH]`, `link-header`,
    ///   `cursor:KEYPATH:PARAM[:TOTALKEYPATH]`, `has-more:FLAGKEYPATH:KEYPATH:PARAM[:TOTALKEYPATH]`,
    ///   `page:PARAM[:TOTALKEYPATH]` or
    ///   `offset:PARAM:LIMITPARAM:LIMIT[:TOTALKEYPATH]`, where LIMIT is a positive integer.
    /// - Returns: nil when the value is not one of those.
    static func pagination(specification: String) -> Pagination? {
        let parts = specification.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        switch (parts.first, parts.count) {
        case ("next-url", 2) where !parts[1].isEmpty:
            return .nextURL(keyPath: parts[1])
        case ("next-url", 3) where !parts[1].isEmpty && !parts[2].isEmpty:
            return .nextURL(keyPath: parts[1], totalKeyPath: parts[2])
        case ("link-header", 1):
            return .linkHeader
        case ("cursor", 3) where !parts[1].isEmpty && !parts[2].isEmpty:
            return .cursor(keyPath: parts[1], parameter: parts[2])
        case ("cursor", 4) where !parts[1].isEmpty && !parts[2].isEmpty && !parts[3].isEmpty:
            return .cursor(keyPath: parts[1], parameter: parts[2], totalKeyPath: parts[3])
        case ("has-more", 4) where !parts[1].isEmpty && !parts[2].isEmpty && !parts[3].isEmpty:
            return .hasMore(flagKeyPath: parts[1], lastKeyPath: parts[2], parameter: parts[3])
        case ("has-more", 5) where !parts[1].isEmpty && !parts[2].isEmpty && !parts[3].isEmpty && !parts[4].isEmpty:
            return .hasMore(flagKeyPath: parts[1], lastKeyPath: parts[2], parameter: parts[3], totalKeyPath: parts[4])
        case ("page", 2) where !parts[1].isEmpty:
            return .pageNumber(parameter: parts[1])
        case ("page", 3) where !parts[1].isEmpty && !parts[2].isEmpty:
            return .pageNumber(parameter: parts[1], totalKeyPath: parts[2])
        case ("offset", 4) where !parts[1].isEmpty && !parts[2].isEmpty:
            guard let limit = Int(parts[3]), limit > 0 else { return nil }
            return .offset(parameter: parts[1], limitParameter: parts[2], limit: limit)
        case ("offset", 5) where !parts[1].isEmpty && !parts[2].isEmpty && !parts[4].isEmpty:
            guard let limit = Int(parts[3]), limit > 0 else { return nil }
            return .offset(parameter: parts[1], limitParameter: parts[2], limit: limit, totalKeyPath: parts[4])
        default:
            return nil
        }
    }
}
