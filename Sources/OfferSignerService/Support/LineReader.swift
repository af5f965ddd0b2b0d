import Foundation

/// Reads a file line by line with a fixed buffer, so a large NDJSON file is never held in
/// memory whole. Lines longer than `maxLineBytes` are reported as such, not buffered.
struct LineReader: Sequence, IteratorProtocol {
    enum Line: Equatable {
        case text(String)
        case tooLong
    }

    private let handle: FileHandle
    private let maxLineBytes: Int
    private var buffer: [UInt8] = []
    private var skippingLongLine = false
    private var atEnd = false

    init(url: URL, maxLineBytes: Int = 1 << 20) throws {
        handle = try FileHandle(forReadingFrom: url)
        self.maxLineBytes = maxLineBytes
    }

    /// Reads standard input or any other open handle.
    init(handle: FileHandle, maxLineBytes: Int = 1 << 20) {
        self.handle = handle
        self.maxLineBytes = maxLineBytes
    }

    mutating func next() -> Line? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                if skippingLongLine {
                    skippingLongLine = false
                    return .tooLong
                }
                return .text(String(decoding: line.last == UInt8(ascii: "\r") ? line.dropLast() : line[...], as: UTF8.self))
            }
            if buffer.count > maxLineBytes {
                skippingLongLine = true
                buffer.removeAll(keepingCapacity: true)
            }
            if atEnd {
                guard !buffer.isEmpty || skippingLongLine else { return nil }
                defer {
                    buffer.removeAll()
                    skippingLongLine = false
                }
                return skippingLongLine ? .tooLong : .text(String(decoding: buffer, as: UTF8.self))
            }
            let chunk = (try? handle.read(upToCount: 64 * 1024)) ?? nil
            if let chunk, !chunk.isEmpty {
                buffer.append(contentsOf: chunk)
            } else {
                atEnd = true
            }
        }
    }
}
