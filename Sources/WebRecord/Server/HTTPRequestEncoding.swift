import Foundation

/// How ``HTTPServer`` turns request parameters into a query string or a body.
///
/// For `GET`, the parameters must be a JSON object (or null). Each member becomes a query
/// item: a string as is, a number or boolean as its JSON text, an array as one item per
/// element (`tag=a&tag=b`), an object as its JSON text; a null member is left out. Names and
/// values are percent-encoded so that only RFC 3986's unreserved characters stay literal (a
/// `+` is sent as `%2B`, never read as a space). For other methods the parameters are the
/// JSON body.
enum HTTPRequestEncoding {
    /// The query items for GET parameters, in the object's order.
    static func queryItems(_ data: JSONValue?, urn: String) throws(WebRecordError) -> [(name: String, value: String)] {
        guard let data else { return [] }
        switch data {
        case .null:
            return []
        case .object(let object):
            var items: [(name: String, value: String)] = []
            for (name, value) in object {
                switch value {
                case .null:
                    continue
                case .array(let elements):
                    for element in elements where !element.isNull {
                        items.append((name, text(of: element)))
                    }
                default:
                    items.append((name, text(of: value)))
                }
            }
            return items
        default:
            throw WebRecordError.invalidRequest(
                "the parameters of a GET request must be a JSON object, not \(data.typeName)", urn: urn)
        }
    }

    /// A parameter value as query text.
    static func text(of value: JSONValue) -> String {
        switch value {
        case .string(let string): string
        case .bool(let bool): bool ? "true" : "false"
        case .integer(let integer): String(integer)
        default: value.serialized()
        }
    }

    /// Percent-encodes everything but RFC 3986's unreserved characters.
    static func percentEncoded(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                output += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return output
    }

    /// `url` with `items` added to its query. A parameter the URL's query already has is
    /// replaced, never sent twice: every item of that name in the query is dropped, and the
    /// others keep their order and their encoding as written.
    static func url(_ url: URL, appending items: [(name: String, value: String)], urn: String) throws(WebRecordError)
        -> URL
    {
        guard !items.isEmpty else { return url }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            throw WebRecordError.invalidRequest("cannot add parameters to \(Redaction.url(url))", urn: urn)
        }
        let encoded = items.map { percentEncoded($0.name) + "=" + percentEncoded($0.value) }.joined(separator: "&")
        let replaced = Set(items.map(\.name))
        let kept = (components.percentEncodedQuery ?? "").split(separator: "&", omittingEmptySubsequences: true).filter
        { pair in
            let name =
                pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            let decoded = (name.replacingOccurrences(of: "+", with: " ").removingPercentEncoding) ?? name
            return !replaced.contains(decoded)
        }
        if !kept.isEmpty {
            components.percentEncodedQuery = kept.joined(separator: "&") + "&" + encoded
        } else {
            components.percentEncodedQuery = encoded
        }
        guard let result = components.url else {
            throw WebRecordError.invalidRequest("cannot add parameters to \(Redaction.url(url))", urn: urn)
        }
        return result
    }
}

extension String {
    func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
