/// The size an image is uploaded as (Upload Image's `imageSize` query parameter).
///
/// [imageSize](https://developer.apple.com/documentation/retentionmessaging/imagesize)
public enum ImageSize: String, Codable, Hashable, Sendable, CaseIterable {
    /// Shown above the message body: 3840 pixels wide, 160 to 2160 high.
    case fullSize = "FULL_SIZE"
    /// A bullet point's icon: 1024 × 1024 pixels.
    case bulletPoint = "BULLET_POINT"
}

/// A PNG file checked against Upload Image's documented requirements before it is sent: a
/// PNG, without transparency (no alpha channel, no `tRNS` chunk), and of its size's
/// dimensions (`FULL_SIZE` 3840 wide and 160–2160 high, `BULLET_POINT` 1024 × 1024).
public struct RetentionImage: Sendable, Hashable {
    public let png: [UInt8]
    public let width: Int
    public let height: Int

    /// The largest file taken (a bound of ours: Apple documents pixel sizes, not bytes).
    public static let maxBytes = 10 * 1024 * 1024
    /// Checks the PNG's structure (``PNGStructure``) and reads its header; throws the sentences
    /// saying what is wrong for `size`.
    public init(png: [UInt8], size: ImageSize) throws(RetentionImageProblems) {
        var problems: [String] = []
        guard !png.isEmpty else { throw RetentionImageProblems(["the image is empty"]) }
        guard png.count <= Self.maxBytes else { throw RetentionImageProblems(["the image is larger than \(Self.maxBytes) bytes"]) }
        if let problem = PNGStructure.problem(png) { throw RetentionImageProblems([problem]) }
        func uint32(_ at: Int) -> Int { png[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        width = uint32(16)
        height = uint32(20)
        let colorType = png[25]
        if colorType == 4 || colorType == 6 || Self.hasChunk("tRNS", in: png) {
            problems.append("the image has transparency (an alpha channel or a tRNS chunk); Apple takes images without transparency")
        }
        switch size {
        case .fullSize where width != 3840 || !(160...2160).contains(height):
            problems.append("a FULL_SIZE image is 3840 pixels wide and 160 to 2160 high; this one is \(width) × \(height)")
        case .bulletPoint where width != 1024 || height != 1024:
            problems.append("a BULLET_POINT image is 1024 × 1024 pixels; this one is \(width) × \(height)")
        default:
            break
        }
        guard problems.isEmpty else { throw RetentionImageProblems(problems) }
        self.png = png
    }

    /// Whether a chunk of `type` comes before the image data.
    static func hasChunk(_ type: String, in png: [UInt8]) -> Bool {
        var offset = 8
        let wanted = Array(type.utf8)
        while offset + 8 <= png.count {
            let length = png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let name = Array(png[offset + 4..<offset + 8])
            if name == wanted { return true }
            if name == Array("IDAT".utf8) || name == Array("IEND".utf8) { return false }
            offset += 12 + length
        }
        return false
    }
}

/// Why an image is refused before it is sent.
public struct RetentionImageProblems: Error, Sendable, Equatable {
    public let problems: [String]
    public init(_ problems: [String]) { self.problems = problems }
}
