public import MRTDCore
import MRTDProtocol

/// The lower tester of BSI TR-03105-5.1 unit ISO7816_G (PACE, plan section 5.7): switches that make
/// the virtual chip insist on PACE and misbehave at one step of it — a status word instead of the
/// answer, another tag, another key, a damaged nonce, PACE-CAM data that are missing, empty or
/// misplaced. Set them on ``VirtualPACE/conformance``. TEST ONLY.
public struct VirtualPACEConformance: Sendable {
    /// Rewrites the content of the `7C` dynamic authentication data of an answer.
    public typealias Rewrite = @Sendable ([UInt8]) -> [UInt8]

    /// The unit's rule: SELECT of the eMRTD application answers 6982 until PACE has succeeded, so
    /// an inspection system cannot go round PACE with BAC.
    public var applicationNeedsPACE = false
    /// MSE:Set AT answers this status word (nothing is set up).
    public var setATStatus: StatusWord?
    /// GENERAL AUTHENTICATE step n (1-4) answers this status word instead of its data; the run ends.
    public var stepStatus: [Int: StatusWord] = [:]
    /// GENERAL AUTHENTICATE step n (1-4): the chip's answer (the content of `7C`) as rewritten here;
    /// the chip itself goes on with the values it computed.
    public var rewrite: [Int: Rewrite] = [:]

    public init(applicationNeedsPACE: Bool = false) {
        self.applicationNeedsPACE = applicationNeedsPACE
    }

    // MARK: Rewrites

    /// The value of data object `tag` transformed by `transform`.
    public static func value(of tag: UInt, _ transform: @escaping @Sendable ([UInt8]) -> [UInt8]) -> Rewrite {
        { content in
            map(content) { $0.tag == tag ? TLV.encode(tag: tag, value: transform($0.bytes)) : nil }
        }
    }

    /// Data object `tag` under the tag `replacement`, its value unchanged.
    public static func retag(_ tag: UInt, as replacement: UInt) -> Rewrite {
        { content in map(content) { $0.tag == tag ? TLV.encode(tag: replacement, value: $0.bytes) : nil } }
    }

    /// Without data object `tag`.
    public static func removing(_ tag: UInt) -> Rewrite {
        { content in map(content) { $0.tag == tag ? [] : nil } }
    }

    /// With `bytes` (whole data objects) after the chip's own.
    public static func appending(_ bytes: [UInt8]) -> Rewrite {
        { content in content + bytes }
    }

    /// Each data object of `content` as `replace` gives it (nil: unchanged).
    private static func map(_ content: [UInt8], _ replace: (TLV) -> [UInt8]?) -> [UInt8] {
        guard let objects = try? TLV.parseAll(content) else { return content }
        return objects.flatMap { replace($0) ?? TLV.encode(tag: $0.tag, value: $0.bytes) }
    }
}

extension VirtualChip {
    /// What the unit's switches answer instead of the chip (nil: the chip answers).
    func paceConformanceRefusal(_ command: CommandAPDU) -> ResponseAPDU? {
        guard let rules = configuration.pace?.conformance else { return nil }
        switch command.ins {
        case 0xA4 where command.p1 == 0x04 && command.data == ApplicationID.lds1:
            if rules.applicationNeedsPACE && secureMessaging == nil {
                return ResponseAPDU(statusWord: .securityStatusNotSatisfied)
            }
        case 0x22 where command.p1 == 0xC1 && command.p2 == 0xA4:
            if let sw = rules.setATStatus {
                paceState.reset()
                return ResponseAPDU(statusWord: sw)
            }
        case 0x86 where paceState.inProgress:
            if let sw = rules.stepStatus[paceState.step] {
                paceState.reset()
                return ResponseAPDU(statusWord: sw)
            }
        default:
            break
        }
        return nil
    }

    /// GENERAL AUTHENTICATE with the unit's rewrites of the chip's answer.
    func paceGeneralAuthenticateWithConformanceFaults(_ command: CommandAPDU) -> ResponseAPDU {
        let step = paceState.step
        let response = paceGeneralAuthenticate(command)
        guard response.statusWord == .success, let rewrite = configuration.pace?.conformance.rewrite[step],
              let outer = try? TLV.parse(response.data), outer.tag == 0x7C
        else { return response }
        return ResponseAPDU(data: TLV.encode(tag: 0x7C, value: rewrite(outer.bytes)), statusWord: response.statusWord)
    }
}
