import Foundation

/// Checks that secret files are not readable by other users.
package enum FilePermissions {
    /// A warning when `path` can be read or written by its group or by others.
    static func warning(for path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 != 0 else { return nil }
        return "WARNING: private key \(path) is readable by other users (mode \(String(mode, radix: 8))); run: chmod 600 \(path)"
    }
}
