import Testing

@testable import WebRecordModelImport

/// The scan that runs before XMLParser: where tags start, and how offsets map to lines and columns.
@Suite struct XMLMarkupScanTests {
    @Test func findsStartAndEndTagsOutsideCommentsCDATAAndProcessingInstructions() throws {
        let scan = try XMLMarkupScan(
            bytes: Array(
                """
                <a x="b > c/>">
                  <!-- <fake/> --><![CDATA[<fake>]]><?pi <fake/>?>
                  <b/><c
                    y='/>'></c></a>
                """.utf8))
        #expect(
            scan.startTags.map { ($0.line, $0.column, $0.isEmpty) }.elementsEqual(
                [(1, 1, false), (3, 3, true), (3, 7, false)], by: ==))
        #expect(scan.endTags.map { ($0.name, $0.line, $0.column) }.elementsEqual([("c", 4, 12), ("a", 4, 16)], by: ==))
        #expect(scan.unterminatedStartTag == nil)
    }

    @Test func recordsAStartTagTheDocumentEndsIn() throws {
        let scan = try XMLMarkupScan(bytes: Array("<a>\n  <bé x='1".utf8))
        #expect(scan.startTags.count == 1)
        #expect(scan.unterminatedStartTag?.name == "bé")
        #expect(scan.unterminatedStartTag.map { scan.location(of: $0.offset) }.map { [$0.line, $0.column] } == [2, 3])
    }

    @Test func mapsOffsetsToLinesAndCharacterColumnsAndBack() throws {
        // "a☕b" then CRLF, "c" then a lone CR, "é" then LF, "d".
        let bytes = Array("a☕b\r\nc\ré\nd".utf8)
        let scan = try XMLMarkupScan(bytes: bytes)
        let places: [(offset: Int, line: Int, column: Int)] = [
            (0, 1, 1), (1, 1, 2), (4, 1, 3), (7, 2, 1), (9, 3, 1), (12, 4, 1),
        ]
        for place in places {
            #expect(scan.location(of: place.offset) == (place.line, place.column), "offset \(place.offset)")
            #expect(
                scan.offset(line: place.line, column: place.column) == place.offset, "\(place.line):\(place.column)")
        }
        #expect(scan.end == (4, 2))
        #expect(scan.offset(line: 9, column: 1) == bytes.count)
    }
}
