/// The chunk structure of a PNG file (ISO/IEC 15948, the W3C PNG specification), checked
/// before an image goes to Apple: a file that only starts like a PNG (a PNG header followed
/// by HTML, say) is refused rather than uploaded.
///
/// Checked: the 8-byte signature; every chunk's length (at most 2³¹ − 1), its type (four ASCII
/// letters) and its CRC-32 over type and data; `IHDR` first, 13 bytes long, with a width and
/// height from 1 to 2³¹ − 1, a colour type and bit depth the specification allows together
/// (0: 1, 2, 4, 8, 16; 2: 8, 16; 3: 1, 2, 4, 8; 4: 8, 16; 6: 8, 16), compression and filter
/// method 0, interlace 0 or 1; `PLTE` present for colour type 3; at least one `IDAT`;
/// `IEND` last, empty, with nothing after it. The image data itself is not decompressed.
enum PNGStructure {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// What is wrong with `png`'s structure, or nil when it is sound.
    static func problem(_ png: [UInt8]) -> String? {
        guard png.count >= 8, Array(png[0..<8]) == signature else { return "the image is not a PNG file (Apple takes PNG only)" }
        var offset = 8
        var index = 0
        var sawPalette = false
        var sawData = false
        var colorType: UInt8 = 0
        while offset < png.count {
            guard png.count - offset >= 12 else { return "the PNG file ends inside a chunk (at byte \(offset))" }
            let length = uint32(png, offset)
            guard length <= 0x7FFF_FFFF else { return "a chunk of the PNG file claims a length over 2³¹ − 1 bytes" }
            let type = Array(png[offset + 4..<offset + 8])
            guard type.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
                return "the PNG file has a chunk whose type is not four letters (at byte \(offset))"
            }
            let name = String(decoding: type, as: UTF8.self)
            guard png.count - offset - 12 >= length else { return "the PNG file ends inside its \(name) chunk" }
            let dataEnd = offset + 8 + length
            guard CRC32.checksum(png[(offset + 4)..<dataEnd]) == UInt32(uint32(png, dataEnd)) else {
                return "the CRC of the PNG file's \(name) chunk is wrong"
            }
            if index == 0 {
                guard name == "IHDR" else { return "the PNG file does not start with an IHDR chunk" }
                guard length == 13 else { return "the PNG file's IHDR chunk is \(length) bytes long, not 13" }
                if let problem = headerProblem(Array(png[(offset + 8)..<dataEnd])) { return problem }
                colorType = png[offset + 17]
            } else if name == "IHDR" {
                return "the PNG file has a second IHDR chunk"
            }
            switch name {
            case "PLTE": sawPalette = true
            case "IDAT": sawData = true
            case "IEND":
                guard length == 0 else { return "the PNG file's IEND chunk is not empty" }
                guard dataEnd + 4 == png.count else { return "the PNG file has \(png.count - dataEnd - 4) bytes after its IEND chunk" }
                guard sawData else { return "the PNG file has no image data (IDAT chunk)" }
                guard colorType != 3 || sawPalette else { return "the PNG file has palette colours but no PLTE chunk" }
                return nil
            default: break
            }
            offset = dataEnd + 4
            index += 1
        }
        return "the PNG file has no IEND chunk at its end"
    }

    /// What is wrong with IHDR's 13 bytes, or nil.
    private static func headerProblem(_ header: [UInt8]) -> String? {
        let width = uint32(header, 0)
        let height = uint32(header, 4)
        guard (1...0x7FFF_FFFF).contains(width), (1...0x7FFF_FFFF).contains(height) else {
            return "the PNG file's width and height must be 1 to 2³¹ − 1 pixels (\(width) × \(height))"
        }
        let depth = header[8]
        let colorType = header[9]
        let allowed: [UInt8: [UInt8]] = [0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16]]
        guard let depths = allowed[colorType] else { return "the PNG file's colour type \(colorType) is not one PNG defines" }
        guard depths.contains(depth) else { return "the PNG file's bit depth \(depth) is not allowed with colour type \(colorType)" }
        guard header[10] == 0, header[11] == 0, header[12] <= 1 else {
            return "the PNG file's compression, filter or interlace method is not one PNG defines"
        }
        return nil
    }

    private static func uint32(_ bytes: [UInt8], _ at: Int) -> Int {
        bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
    }
}

/// CRC-32 as PNG and zlib compute it (ISO 3309, polynomial 0xEDB88320, reflected).
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { n in
        (0..<8).reduce(UInt32(n)) { c, _ in c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    }

    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        ~bytes.reduce(UInt32.max) { crc, byte in table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
    }
}
