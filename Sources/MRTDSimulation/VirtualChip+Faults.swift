public import MRTDCore
import MRTDProtocol
import Synchronization

/// A fault the virtual chip commits on one exchange (RELIABILITY "Field failure modes").
public enum VirtualChipFault: Sendable, Hashable {
    /// The protected response's MAC has a bit flipped (the chip's session goes on).
    case corruptMAC
    /// The chip answers this status word in plain, without carrying out the command, and drops its
    /// secure-messaging session: 6987/6988 (SM data objects missing / wrong), or a naked 6700 inside
    /// secure messaging as some chips send (gmrtd #457).
    case plainStatus(StatusWord)
    /// The chip answers this status word without carrying out the command, protected when secure
    /// messaging is on: length errors (6700, 6Cxx, 6B00), 6982, ...
    case status(StatusWord)
}

/// A defect of every protected READ BINARY answer (TR-03105-5.1 ISO7816_B_05..B_09): a data object
/// missing, or a cryptogram that the MAC covers but that does not decrypt to the file's bytes.
public enum SecureMessagingDefect: Sendable, Hashable {
    case missingMAC, missingCryptogram, missingStatus, alteredCryptogram

    var omitted: Set<UInt8> {
        switch self {
        case .missingMAC: [0x8E]
        case .missingCryptogram: [0x85, 0x87]
        case .missingStatus: [0x99]
        case .alteredCryptogram: []
        }
    }
}

/// A defect of the chip's answer to BAC's EXTERNAL AUTHENTICATE (TR-03105-5.1 ISO7816_B_01..B_03).
public enum BACAnswerDefect: Sendable, Hashable {
    /// M_IC does not verify.
    case corruptMAC
    /// M_IC verifies, but E_IC does not echo the terminal's RND.IFD.
    case wrongEcho
    /// The chip refuses with this status word (as for a wrong MRZ).
    case status(StatusWord)
}

extension VirtualChip {
    /// The answer for a fault that replaces the chip's processing (nil: process the command).
    func answer(to bytes: [UInt8], injecting fault: VirtualChipFault?) -> [UInt8]? {
        switch fault {
        case .plainStatus(let sw)?:
            dropSession()
            return ResponseAPDU(statusWord: sw).bytes
        case .status(let sw)? where secureMessaging == nil:
            return ResponseAPDU(statusWord: sw).bytes
        default:
            return nil
        }
    }
}

/// A fault at one exchange of a ``VirtualCardSlot``: the link's or the chip's.
public enum VirtualFault: Sendable, Hashable, CustomStringConvertible {
    /// The card leaves the field as the command is sent: the exchange throws
    /// `TransportError.cardRemoved` and so does every later one on this connection. The next
    /// `connect()` presents the card again, in a fresh state (nothing selected, no session).
    case removal
    /// The chip does not answer this one command: the exchange throws `TransportError.timeout`.
    case timeout
    /// The chip stops answering for good: this and every later exchange, on any connection, time out.
    case mute
    /// The chip misbehaves on this exchange.
    case chip(VirtualChipFault)

    public var description: String {
        switch self {
        case .removal: return "removal"
        case .timeout: return "timeout"
        case .mute: return "mute"
        case .chip(.corruptMAC): return "bad-mac"
        case .chip(.plainStatus(let sw)): return "plain-\(sw)"
        case .chip(.status(let sw)): return "status-\(sw)"
        }
    }
}

/// A reader slot holding a virtual card that can be pulled and presented again: `connect()` is the
/// reconnecting read's `connect` (`DocumentReader.read(connect:options:random:)`).
///
/// Faults are scheduled by exchange index, counted over every connection of the slot (the same
/// index `transport.recoveries` reports). Each `connect()` powers a new ``VirtualChip`` from the
/// configuration: the same document, which must be selected and authenticated again.
public final class VirtualCardSlot: Sendable {
    private struct State {
        var chip: VirtualChip?
        var generation = 0
        var present = true
        var muted = false
        var exchanges = 0
        var connects = 0
        var refusalsLeft: Int
    }

    public let configuration: VirtualChipConfiguration
    /// The chip presented after the first reconnection (nil: the same document): a different chip
    /// to prove that torn data never end as `valid`.
    public let reinserted: VirtualChipConfiguration?
    public let faults: [Int: VirtualFault]
    private let state: Mutex<State>

    /// - Parameters:
    ///   - faults: what goes wrong at which exchange index.
    ///   - refusedReconnects: after a removal, how many `connect()` calls find no card (they throw
    ///     `TransportError.cardRemoved`) before the card is back.
    ///   - reinserted: the chip that answers after a reconnection, when not the same one.
    public init(
        configuration: VirtualChipConfiguration, faults: [Int: VirtualFault] = [:], refusedReconnects: Int = 0,
        reinserted: VirtualChipConfiguration? = nil
    ) {
        self.configuration = configuration
        self.faults = faults
        self.reinserted = reinserted
        state = Mutex(State(refusalsLeft: refusedReconnects))
    }

    public var capabilities: TransportCapabilities { configuration.extendedLength ? .extended : .shortOnly }

    /// Exchanges attempted over all connections (failed ones included).
    public var exchanges: Int { state.withLock { $0.exchanges } }
    /// `connect()` calls that returned a link.
    public var connects: Int { state.withLock { $0.connects } }

    /// Powers the card (again) and returns a link to it.
    public func connect() async throws -> any APDUTransport {
        let generation: Int = try state.withLock { s in
            if !s.present {
                if s.refusalsLeft > 0 {
                    s.refusalsLeft -= 1
                    throw TransportError.cardRemoved
                }
                s.present = true
            }
            let config = s.connects > 0 ? (reinserted ?? configuration) : configuration
            s.chip = VirtualChip(configuration: config)
            s.generation += 1
            s.connects += 1
            return s.generation
        }
        return Link(slot: self, generation: generation)
    }

    private enum Step {
        case fail(TransportError)
        case deliver(VirtualChip, VirtualChipFault?)
    }

    fileprivate func transmit(_ command: [UInt8], generation: Int) async throws -> [UInt8] {
        let step: Step = state.withLock { s in
            guard s.present, s.generation == generation, let chip = s.chip else { return .fail(.cardRemoved) }
            let index = s.exchanges
            s.exchanges += 1
            if s.muted { return .fail(.timeout) }
            switch faults[index] {
            case .removal?:
                s.present = false
                s.chip = nil
                return .fail(.cardRemoved)
            case .timeout?:
                return .fail(.timeout)
            case .mute?:
                s.muted = true
                return .fail(.timeout)
            case .chip(let fault)?:
                return .deliver(chip, fault)
            case nil:
                return .deliver(chip, nil)
            }
        }
        switch step {
        case .fail(let error): throw error
        case .deliver(let chip, let fault):
            // A locked chip (`lock-after-failed-access`) does not answer.
            guard let answer = await chip.respond(to: command, injecting: fault) else { throw TransportError.timeout }
            return answer
        }
    }

    private struct Link: APDUTransport {
        let slot: VirtualCardSlot
        let generation: Int
        var capabilities: TransportCapabilities { slot.capabilities }
        func transmit(_ command: [UInt8]) async throws -> [UInt8] {
            try await slot.transmit(command, generation: generation)
        }
    }
}
