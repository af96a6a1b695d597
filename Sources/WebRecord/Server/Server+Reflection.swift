import Foundation

// MARK: - Requests, responses and page managers shown with their secrets redacted

extension ServerRequest: CustomReflectable {
    /// The request's members for `print`, `String(reflecting:)` and `dump`, with the values of
    /// secret headers, query parameters and JSON parameters redacted (see
    /// ``Redaction/secretNames``).
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "urn": Redaction.urn(urn), "data": Redaction.json(data) as Any, "method": method,
                "headers": Redaction.headers(headers), "domain": domain as Any, "timeout": timeout as Any,
                "entityName": entityName, "page": page as Any,
            ],
            displayStyle: .struct)
    }
}

extension ServerResponse: CustomReflectable {
    /// The response's members for `print`, `String(reflecting:)` and `dump`, with the values of
    /// secret headers (`Set-Cookie`, say), URL parameters and body members redacted.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "body": Redaction.json(body), "headers": Redaction.headers(headers), "statusCode": statusCode as Any,
                "url": url.map { Redaction.url($0) } as Any,
            ],
            displayStyle: .struct)
    }
}

extension BuiltInPageManager: CustomReflectable {
    /// The page manager for `print`, `String(reflecting:)` and `dump`, with the secrets of the
    /// next page's URN (a `next` URL may carry a token) and parameters redacted.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "nextPageURN": nextPageURN.map { Redaction.urn($0) } as Any,
                "nextPageData": Redaction.json(nextPageData) as Any, "currentPageIndex": currentPageIndex as Any,
                "totalResultsCount": totalResultsCount as Any, "resultsPerPage": resultsPerPage as Any,
            ],
            displayStyle: .struct)
    }
}
