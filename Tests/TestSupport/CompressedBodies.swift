import Foundation

/// Compressed response bodies, built by hand so that tests need no compression library: bodies
/// that inflate far beyond their size (bombs), and valid gzip bodies of given bytes.
public enum CompressedBodies {
    /// A `Content-Encoding: gzip` body that inflates to `count` copies of `byte` (at most 143,
    /// an ASCII character), from about `count / 160` bytes: one fixed-Huffman deflate block of
    /// 258-byte back-references.
    ///
    /// Its trailer's CRC is not computed (it would take as long as inflating it): a client that
    /// reads it to the end finds it corrupt there, after it has inflated all of it.
    public static func gzipBomb(inflatingTo count: Int, of byte: UInt8 = UInt8(ascii: " ")) -> [UInt8] {
        gzipHeader + repeatedDeflate(byte, count: count) + [0, 0, 0, 0]
            + littleEndian(UInt32(truncatingIfNeeded: count))
    }

    /// A `Content-Encoding: deflate` body (a zlib stream) that inflates to `count` copies of
    /// `byte`; its Adler-32 checksum is not computed, as in ``gzipBomb(inflatingTo:of:)``.
    public static func deflateBomb(inflatingTo count: Int, of byte: UInt8 = UInt8(ascii: " ")) -> [UInt8] {
        [0x78, 0x01] + repeatedDeflate(byte, count: count) + [0, 0, 0, 0]
    }

    /// A `Content-Encoding: zstd` body that inflates to `count` copies of `byte`: one frame of
    /// 128 KiB run-length blocks, 4 bytes each.
    public static func zstdBomb(inflatingTo count: Int, of byte: UInt8 = UInt8(ascii: " ")) -> [UInt8] {
        // Magic number, a frame header with no content size or checksum, a 128 KiB window.
        var bytes: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x38]
        var remaining = count
        let blockSize = 128 * 1024
        repeat {
            let size = min(remaining, blockSize)
            remaining -= size
            let header = UInt32(remaining == 0 ? 1 : 0) | (1 << 1) | (UInt32(size) << 3)
            bytes += [UInt8(header & 0xFF), UInt8((header >> 8) & 0xFF), UInt8((header >> 16) & 0xFF), byte]
        } while remaining > 0
        return bytes
    }

    /// A valid `Content-Encoding: gzip` body of `data`, stored uncompressed in deflate blocks,
    /// with its CRC-32 and length.
    public static func gzip(_ data: [UInt8]) -> [UInt8] {
        var bytes = gzipHeader
        var offset = 0
        repeat {
            let size = min(data.count - offset, 65_535)
            let isLast = offset + size == data.count
            bytes.append(isLast ? 1 : 0)
            bytes += littleEndian16(UInt16(size)) + littleEndian16(~UInt16(size))
            bytes += data[offset..<(offset + size)]
            offset += size
        } while offset < data.count
        return bytes + littleEndian(crc32(data)) + littleEndian(UInt32(truncatingIfNeeded: data.count))
    }

    // MARK: - Parts

    private static let gzipHeader: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF]

    /// One final fixed-Huffman deflate block: a literal `byte`, then back-references of length
    /// 258 at distance 1, then literals for the rest.
    private static func repeatedDeflate(_ byte: UInt8, count: Int) -> [UInt8] {
        precondition(byte < 144, "a literal of 8 bits")
        var writer = BitWriter()
        writer.bits(1, count: 1)  // BFINAL
        writer.bits(1, count: 2)  // BTYPE 01: fixed Huffman codes
        guard count > 0 else {
            writer.code(0, length: 7)
            return writer.finished()
        }
        writer.code(0x30 + UInt32(byte), length: 8)
        var remaining = count - 1
        while remaining >= 258 {
            writer.code(0b1100_0101, length: 8)  // length symbol 285: 258 bytes
            writer.code(0, length: 5)  // distance code 0: distance 1
            remaining -= 258
        }
        for _ in 0..<remaining { writer.code(0x30 + UInt32(byte), length: 8) }
        writer.code(0, length: 7)  // end of block
        return writer.finished()
    }

    private struct BitWriter {
        var bytes: [UInt8] = []
        var current: UInt32 = 0
        var filled: UInt32 = 0

        /// `count` bits of `value`, least significant first (deflate's header fields).
        mutating func bits(_ value: UInt32, count: UInt32) {
            for index in 0..<count { push((value >> index) & 1) }
        }

        /// A Huffman code, most significant bit first.
        mutating func code(_ value: UInt32, length: UInt32) {
            for index in (0..<length).reversed() { push((value >> index) & 1) }
        }

        private mutating func push(_ bit: UInt32) {
            current |= bit << filled
            filled += 1
            if filled == 8 {
                bytes.append(UInt8(current))
                current = 0
                filled = 0
            }
        }

        mutating func finished() -> [UInt8] {
            if filled > 0 { bytes.append(UInt8(current)) }
            return bytes
        }
    }

    private static func littleEndian(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) }
    }

    private static func littleEndian16(_ value: UInt16) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8)]
    }

    private static let crcTable: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index)
        for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        return crc
    }

    private static func crc32(_ data: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return ~crc
    }
}
