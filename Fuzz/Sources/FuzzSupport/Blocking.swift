import Dispatch

private final class Box<T>: @unchecked Sendable { var value: T? }

/// Runs async work to completion from libFuzzer's synchronous callback (the fuzzer's own thread,
/// never a cooperative-pool thread, so blocking it is safe).
public func runBlocking<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
    let box = Box<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        box.value = await work()
        done.signal()
    }
    done.wait()
    return box.value!
}
