import Foundation

/// Starts a thread named for what it does. The name shows in `top -H`, `ps -L`, `perf` and
/// `/proc/PID/task/*/comm` (Linux keeps its first 15 bytes), which Foundation's `Thread.name`
/// alone does not set on Linux: without it every thread of the service is `offer-signer`.
public enum NamedThread {
    /// Runs `body` on a new thread called `name` (ASCII), with a stack of `stackSize` bytes
    /// when given.
    public static func start(_ name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            nameCurrentThread(name)
            body()
        }
        thread.name = name
        if let stackSize { thread.stackSize = stackSize }
        thread.start()
    }

    /// Names the calling thread for the operating system: the first 15 bytes of `name`,
    /// written where Linux keeps it (`pthread_setname_np` is not visible to Swift's Glibc).
    static func nameCurrentThread(_ name: String) {
        let descriptor = open("/proc/thread-self/comm", O_WRONLY)
        guard descriptor >= 0 else { return }  // not Linux, or no /proc: the name is cosmetic
        defer { close(descriptor) }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }
}
