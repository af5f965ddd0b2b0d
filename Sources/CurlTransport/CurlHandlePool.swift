import Synchronization

/// Idle easy handles by the origin they last talked to, so the next exchange with that origin
/// takes a handle whose connection to it is still open (keep-alive, TLS session). At most
/// ``maxIdleHandles`` are kept; the longest idle goes first.
package final class CurlHandlePool: Sendable {
    private struct Idle {
        var handles: [(origin: String, handle: CurlEasyHandle)] = []
    }

    private let idle = Mutex(Idle())
    private let maxIdleHandles: Int

    package init(maxIdleHandles: Int = 16) {
        self.maxIdleHandles = maxIdleHandles
    }

    /// Performs `request` on an idle handle of `origin` (the most recently used) or on a new
    /// one; the handle is idle again afterwards, its connections open.
    package func perform(_ request: CurlRequest, origin: String = "") throws(CurlFailure) -> CurlResponse {
        let handle = try take(origin: origin)
        defer { put(handle, origin: origin) }
        return try handle.perform(request)
    }

    private func take(origin: String) throws(CurlFailure) -> CurlEasyHandle {
        let reused = idle.withLock { idle -> CurlEasyHandle? in
            guard let index = idle.handles.lastIndex(where: { $0.origin == origin }) else { return nil }
            return idle.handles.remove(at: index).handle
        }
        if let reused { return reused }
        return try CurlEasyHandle()
    }

    private func put(_ handle: CurlEasyHandle, origin: String) {
        let dropped = idle.withLock { idle -> CurlEasyHandle? in
            idle.handles.append((origin, handle))
            return idle.handles.count > maxIdleHandles ? idle.handles.removeFirst().handle : nil
        }
        _ = dropped  // freed (its connections closed) outside the lock
    }
}
