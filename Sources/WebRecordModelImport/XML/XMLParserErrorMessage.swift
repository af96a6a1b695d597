/// What an `XMLParser` error means, in one sentence.
///
/// The codes are libxml2's `xmlParserErrors`. `XMLParser` reports them as the `NSError` code,
/// on Linux and on Apple platforms alike (its `NSError` carries no message of its own). They
/// are compared as numbers: FoundationXML's `XMLParser.ErrorCode` on Linux numbers its cases
/// from 0, one below libxml2's codes.
enum XMLParserErrorMessage {
    /// libxml2's `XML_ERR_DOCUMENT_EMPTY`: no `<` where the root element should start.
    static let documentEmpty = 4
    /// libxml2's `XML_ERR_DOCUMENT_END`: the end of the document came too early, or content
    /// follows the root element.
    static let documentEnd = 5
    /// libxml2's `XML_ERR_UNDECLARED_ENTITY`.
    static let undeclaredEntity = 26
    /// libxml2's `XML_WAR_UNDECLARED_ENTITY`.
    static let undeclaredEntityWarning = 27
    /// libxml2's `XML_ERR_TAG_NAME_MISMATCH`: an end tag closes another element than the open one.
    static let tagNameMismatch = 76
    /// libxml2's `XML_ERR_EXTRA_CONTENT`.
    static let extraContent = 86

    /// The message for a libxml2 error code.
    static func message(forCode code: Int) -> String {
        switch code {
        // libxml2 reports both "detected an error in element content" and "Huge input lookup"
        // (a start tag that does not fit in its 10,000,000-byte look-ahead) as an internal error.
        case 1:
            "markup XMLParser cannot read: a '<' in element content that starts no tag, comment or CDATA section, or a tag of about 10,000,000 bytes or more"
        case 2: "the XML parser ran out of memory"
        case 3: "the document does not start like XML"
        case documentEmpty: "expected the root element"
        case documentEnd: "unexpected end of document, or content after the root element"
        case 6, 7, 8: "invalid character reference"
        case 9: "a character that XML does not allow (a control character, or a reference to one)"
        case 10...17: "entity or character reference outside the root element"
        case 22: "'&' starts no entity or character reference (write &amp;)"
        case 23: "entity reference without its ';'"
        case undeclaredEntity, undeclaredEntityWarning: "unknown entity"
        case 33, 43: "expected a quoted string"
        case 34, 44: "unterminated quoted string"
        case 35, 200...205: "malformed namespace declaration or prefix"
        case 38: "'<' is not allowed in an attribute value"
        case 39: "expected a quoted attribute value"
        case 40: "unterminated attribute value, or one longer than XMLParser's limit of 10,000,000 bytes"
        case 41: "attribute without a value"
        case 42: "duplicate attribute"
        case 45: "unterminated comment"
        case 46, 47: "unterminated processing instruction"
        case 56, 57: "malformed XML declaration"
        case 62: "']]>' is not allowed in text"
        case 63: "unterminated CDATA section"
        case 64: "the XML declaration is only allowed at the start of the document"
        case 65: "expected whitespace (between attributes, or after a name)"
        case 66: "expected a separator"
        case 67, 68: "expected a name"
        case 72: "expected '<'"
        case 73: "expected '>' (an unterminated tag)"
        case 74: "expected '</'"
        case 75: "expected '=' after an attribute name"
        case tagNameMismatch: "mismatched end tag"
        case 77: "unterminated element"
        case 78: "the XML declaration's standalone value is not 'yes' or 'no'"
        case 79, 31, 32, 81: "unsupported or invalid encoding (only UTF-8 is supported)"
        case 80: "'--' is not allowed inside a comment"
        case 85: "the document is not well-balanced"
        case extraContent: "unexpected content"
        case 89: "an entity refers to itself, or expands too much"
        case 96: "the XML declaration has no version"
        case 97, 108, 109: "unsupported XML version (only 1.0 is supported)"
        case 110: "a name is too long"
        default: "not well-formed XML (libxml2 error \(code))"
        }
    }
}
