import Foundation
import WebRecord

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A server for Foursquare's API: where it is, and how to authenticate.
///
/// Foursquare (`https://api.foursquare.com/v2/`) took a user's OAuth token as the
/// `oauth_token` query parameter of every request, next to `v`, the API version the client was
/// written for.
final class FoursquareServer: HTTPServer, @unchecked Sendable {
    // `@unchecked Sendable`, as `HTTPServer`: the only state added is an immutable string.
    let oauthToken: String

    init(baseURL: URL, oauthToken: String) {
        self.oauthToken = oauthToken
        super.init(baseURL: baseURL)
    }

    override func urlRequest(for request: ServerRequest) throws -> URLRequest {
        var request = request
        var query = request.data?.objectValue ?? [:]
        query["oauth_token"] = .string(oauthToken)
        query["v"] = "20130815"
        request.data = .object(query)
        return try super.urlRequest(for: request)
    }
}
