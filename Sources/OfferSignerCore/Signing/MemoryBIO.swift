internal import COpenSSL

/// A scratch OpenSSL memory BIO, for the PEM writers.
enum MemoryBIO {
    /// Runs `write` against a fresh memory BIO and returns what it wrote, or nil if it failed.
    static func string(_ write: (OpaquePointer) -> Bool) -> String? {
        guard let bio = BIO_new(BIO_s_mem()) else { return nil }
        defer { BIO_free(bio) }
        guard write(bio) else {
            ERR_clear_error()
            return nil
        }
        var data: UnsafeMutablePointer<CChar>? = nil
        let length = copenssl_bio_mem_data(bio, &data)
        guard length > 0, let data else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    }
}
