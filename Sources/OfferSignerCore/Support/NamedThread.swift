import Foundation

/// Starts a thread named for what it does. The name shows in `top -H`, `ps -L`, `perf` and
/// `/proc/PID/task/*/comm` (Linux keeps its first 15 bytes), which Foundation's `Thread.name`
/// alone does not set on Linux: without it every thread of the service is `offer-signer`.
public enum NamedThread {
    /// Runs `body` on a new thread called `name` (ASCII), with a stack of `stackSize` bytes
    /// when given, and at the nice value `niceness` when given (higher: less of the CPU when
    /// threads compete for it; Linux keeps a nice value per thread).
    public static func start(_ name: String, stackSize: Int? = nil, niceness: Int32? = nil, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            nameCurrentThread(name)
            if let niceness { lowerCurrentThread(to: niceness) }
            body()
        }
        thread.name = name
        if let stackSize { thread.stackSize = stackSize }
        thread.start()
    }

    /// Sets the calling thread's nice value (`who` 0 is the calling thread on Linux); raising
    /// it needs no privilege. Best effort: a thread left at its nice value runs as any other.
    static func lowerCurrentThread(to niceness: Int32) {
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
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
