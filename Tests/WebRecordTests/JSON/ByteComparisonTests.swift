import Foundation
import Testing

@testable import WebRecord

@Suite("Byte comparison")
struct ByteComparisonTests {
    @Test("equalBytes finds a difference at any position of any length, reading no byte past the end")
    func everyLengthAndPosition() {
        for count in 0...40 {
            // Exactly `count` bytes each, so that a read past the end would be caught by the
            // address sanitizer rather than meet equal padding.
            let a = UnsafeMutablePointer<UInt8>.allocate(capacity: max(count, 1))
            let b = UnsafeMutablePointer<UInt8>.allocate(capacity: max(count, 1))
            defer {
                a.deallocate()
                b.deallocate()
            }
            for index in 0..<count {
                a[index] = UInt8(truncatingIfNeeded: index &* 37 &+ 11)
                b[index] = a[index]
            }
            #expect(equalBytes(a, b, count), "length \(count)")
            for position in 0..<count {
                b[position] ^= 0x40
                #expect(!equalBytes(a, b, count), "length \(count), difference at \(position)")
                b[position] = a[position]
            }
        }
    }

    @Test("equalBytes with a readable tail ignores the bytes past the end")
    func readableTail() {
        let a = UnsafeMutablePointer<UInt8>.allocate(capacity: 32)
        let b = UnsafeMutablePointer<UInt8>.allocate(capacity: 32)
        defer {
            a.deallocate()
            b.deallocate()
        }
        a.initialize(repeating: 1, count: 32)
        b.initialize(repeating: 1, count: 32)
        b[13] = 2  // past the 13 bytes compared, in the word loaded for the last 5
        #expect(equalBytes(a, b, 13, tailIsReadable: true))
        b[12] = 2
        #expect(!equalBytes(a, b, 13, tailIsReadable: true))
    }

    @Test("Strings are the same by UTF-8 bytes, not canonical equivalence")
    func strings() {
        let long = String(repeating: "ключ", count: 20)
        #expect(sameUTF8("abc", "abc"))
        #expect(sameUTF8(long, String(long.reversed().reversed())))
        #expect(!sameUTF8(long, long + "!"))
        #expect(!sameUTF8("\u{E9}", "e\u{301}"))
        #expect("\u{E9}" == "e\u{301}")
        #expect(sameUTF8("", ""))
        #expect(DatabaseValue.text("\u{E9}") != .text("e\u{301}"))
        #expect(DatabaseValue.text(long) == .text(String(long.reversed().reversed())))
    }
}
