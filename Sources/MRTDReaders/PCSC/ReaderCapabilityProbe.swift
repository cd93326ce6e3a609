internal import CPCSCLite
import MRTDCore

/// Where a reader's capabilities came from.
enum CapabilitySource: Sendable, Equatable {
    /// PC/SC v2 Part 10 `FEATURE_GET_TLV_PROPERTIES`, property `dwMaxAPDUDataSize` (libccid reports
    /// it from the CCID class descriptor: 0 for readers at short-APDU exchange level).
    case tlvProperties
    /// `SCARD_ATTR_MAXINPUT` (the largest command the driver takes).
    case maxInput
    /// The reader said nothing; extended length is tried and dropped on its first failure.
    case assumed
    /// Fixed by the backend's options or by T=0.
    case configured
    /// A reader known by name (``ReaderProfile``) whatever its driver claims.
    case profile
}

/// Learns what a PC/SC reader carries. The parsing is pure; `probe` talks to the driver.
enum ReaderCapabilityProbe {
    static let featureGetTLVProperties: UInt8 = 0x12
    static let propertyMaxAPDUDataSize: UInt8 = 0x0A

    /// The control code of `feature` in a `CM_IOCTL_GET_FEATURE_REQUEST` answer (PC/SC v2 Part 10
    /// §2.2: tag, length 4, big-endian control code).
    static func controlCode(of feature: UInt8, in answer: [UInt8]) -> UInt? {
        var i = 0
        while i + 2 <= answer.count {
            let tag = answer[i], length = Int(answer[i + 1])
            guard i + 2 + length <= answer.count else { return nil }
            if tag == feature && length == 4 {
                return answer[(i + 2)..<(i + 6)].reduce(UInt(0)) { $0 << 8 | UInt($1) }
            }
            i += 2 + length
        }
        return nil
    }

    /// A little-endian property of a `FEATURE_GET_TLV_PROPERTIES` answer (PC/SC v2 Part 10 §2.6.14).
    static func property(_ tag: UInt8, in answer: [UInt8]) -> UInt? {
        var i = 0
        while i + 2 <= answer.count {
            let t = answer[i], length = Int(answer[i + 1])
            guard i + 2 + length <= answer.count else { return nil }
            if t == tag && (1...4).contains(length) {
                return answer[(i + 2)..<(i + 2 + length)].reversed().reduce(UInt(0)) { $0 << 8 | UInt($1) }
            }
            i += 2 + length
        }
        return nil
    }

    /// Capabilities from `dwMaxAPDUDataSize` (0 = short APDUs only).
    static func capabilities(maxAPDUDataSize size: UInt) -> TransportCapabilities {
        guard size > UInt(TransportCapabilities.shortOnly.maxCommandLength) else { return .shortOnly }
        return TransportCapabilities(
            extendedLength: true, maxCommandLength: Int(min(size, 65_544)),
            maxResponseLength: TransportCapabilities.extended.maxResponseLength)
    }

    /// The reader's capabilities from its name and what its driver said (``ReaderProfile``): a
    /// reader known by name keeps its profile's limits, else the probe decides.
    static func decide(
        readerName: String, probed: (TransportCapabilities, CapabilitySource)?
    ) -> (TransportCapabilities, CapabilitySource) {
        let profile = ReaderProfile.decide(readerName: readerName, probed: probed?.0)
        if profile.isKnownByName { return (profile.capabilities, .profile) }
        return probed ?? (.extended, .assumed)
    }

    /// Asks the driver behind `card` (a card or a direct connection).
    static func probe(_ card: PCSCContext.Card) -> (TransportCapabilities, CapabilitySource)? {
        if let features = try? card.control(UInt(mrtd_ioctl_get_feature_request())),
           let code = controlCode(of: featureGetTLVProperties, in: features),
           let properties = try? card.control(code),
           let size = property(propertyMaxAPDUDataSize, in: properties) {
            return (capabilities(maxAPDUDataSize: size), .tlvProperties)
        }
        if let raw = try? card.attribute(UInt(mrtd_attr_maxinput())), !raw.isEmpty, raw.count <= 4 {
            let value = raw.reversed().reduce(UInt(0)) { $0 << 8 | UInt($1) }
            if value > 0 { return (capabilities(maxAPDUDataSize: value), .maxInput) }
        }
        return nil
    }
}
