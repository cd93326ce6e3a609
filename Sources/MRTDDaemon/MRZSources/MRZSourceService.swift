import FoundationEssentials
import Logging
import MRTDCore
import Glibc
import MRTDScanners
import ServiceLifecycle
import Synchronization
import MRTDPlatform

/// Reads every configured MRZ source (`mrz-source`), each on a thread of its own (blocking reads
/// stay off the cooperative pool), decodes its frames and hands them to the pairing in order. A
/// device that goes away (unplugged, a pty closed) is reopened by its path every half second until
/// it is back. A source that writes junk cannot flood the daemon: its line errors are coalesced and
/// it is backed off (``MRZSourceThrottle``), and the queue to the pairing is bounded (frames past
/// ``queueLimit`` are dropped and counted).
struct MRZSourceService: Service, CustomStringConvertible {
    var description: String { "MRZSources" }
    let sources: [MRZSourceConfiguration]
    let pairing: MRZPairing
    let logger: Logger
    /// The wait before reopening a device that went away or could not be opened.
    var retry: Duration = .milliseconds(500)

    /// Set when the service stops; each source's thread ends at its next poll.
    final class StopFlag: Sendable {
        private let stopped = Mutex(false)
        var isSet: Bool { stopped.withLock { $0 } }
        func set() { stopped.withLock { $0 = true } }
    }

    /// Frames waiting for the pairing, all sources together; more are dropped (and counted).
    static let queueLimit = 64

    func run() async throws {
        let (frames, continuation) = AsyncStream<(MRZSourceConfiguration, ScannerFrame)>.makeStream(
            bufferingPolicy: .bufferingOldest(Self.queueLimit))
        let stop = StopFlag()
        for source in sources {
            let logger = self.logger
            let retry = self.retry
            BlockingThread.detach(name: "mrtdd-mrz") {
                var dropped = 0
                var droppedReportedAt = ContinuousClock.now
                Self.follow(source, stop: stop, retry: retry, logger: logger) { frame in
                    if case .dropped = continuation.yield((source, frame)) { dropped += 1 }
                    if dropped > 0, ContinuousClock.now - droppedReportedAt >= MRZSourceThrottle.interval {
                        logger.warning("MRZ source: frames dropped, the daemon is behind", metadata: ["source": "\(source.label)", "dropped": "\(dropped)"])
                        dropped = 0
                        droppedReportedAt = .now
                    }
                }
            }
        }
        let pairing = self.pairing
        await withGracefulShutdownHandler {
            for await (source, frame) in frames {
                // Each frame in a task of its own: the async frames that decoded and checked its MRZ
                // live in that task's memory, freed (and so overwritten) when it ends. This
                // service's task lasts as long as the daemon and kept them until the next scan.
                await withDiscardingTaskGroup { group in
                    group.addTask { await pairing.handle(frame, source: source.label, reader: source.reader) }
                }
            }
        } onGracefulShutdown: {
            stop.set()
            continuation.finish()
        }
        logger.debug("MRZ sources stopped")
    }

    /// One source's loop: open, read and decode until the device goes away, wait, reopen; until stopped.
    static func follow(
        _ source: MRZSourceConfiguration, stop: StopFlag, retry: Duration, logger: Logger, emit: (ScannerFrame) -> Void
    ) {
        var lastFailure: String?
        while !stop.isSet {
            do {
                let device = try MRZDevice(source)
                logger.notice("MRZ source open", metadata: ["source": "\(source.label)", "kind": "\(source.kind.rawValue)"])
                lastFailure = nil
                var decoder = source.makeDecoder()
                var throttle = MRZSourceThrottle()
                reading: while !stop.isSet {
                    switch device.read(timeoutMs: 200) {
                    case .bytes(let bytes):
                        for frame in decoder.feed(bytes) {
                            if let admitted = throttle.admit(frame, at: .now) { emit(admitted) }
                        }
                        let pause = throttle.endOfRead()
                        if pause > .zero {
                            // Only errors from this source for a while: read it less often.
                            var waited = Duration.zero
                            while waited < pause, !stop.isSet {
                                usleep(50_000)
                                waited += .milliseconds(50)
                            }
                        }
                    case .idle:
                        continue
                    case .gone(let why):
                        logger.warning("MRZ source went away; reopening when it is back", metadata: ["source": "\(source.label)", "reason": "\(why)"])
                        break reading
                    }
                }
            } catch {
                let why = error.description
                if why != lastFailure {
                    logger.warning("MRZ source cannot be opened; retrying", metadata: ["source": "\(source.label)", "reason": "\(why)"])
                    lastFailure = why
                }
            }
            var waited = Duration.zero
            while waited < retry, !stop.isSet {
                usleep(50_000)
                waited += .milliseconds(50)
            }
        }
    }
}
