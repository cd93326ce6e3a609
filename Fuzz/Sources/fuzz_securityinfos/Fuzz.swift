import Foundation
import FuzzSupport
import MRTDCore
import MRTDProtocol

/// EF.CardAccess, DG14 and EF.CardSecurity (first byte: which) → `SecurityInfos` / `CardSecurity`,
/// then what the reader derives from them (PACE parameter choice, Chip Authentication selection).
/// Unknown OIDs are kept as unknown; no trap; a parsed value re-parses from its own bytes to the
/// same value; every failure is a typed error.
@main enum FuzzSecurityInfos {
    static func main() {
        // Seeds: the real EF.CardAccess, DG14 and EF.CardSecurity files of ../shared/samples.
        if FuzzSeeds.writeIfAsked({
            var seeds: [String: [UInt8]] = [:]
            for (kind, directories) in [(0, ["gmrtd/cardaccess", "openpace/cardaccess"]), (1, ["gmrtd/dg14"]),
                                        (2, ["gmrtd/cardsecurity", "openpace/cardsecurity"])] {
                for directory in directories {
                    let path = "../shared/samples/\(directory)"
                    for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
                        guard let data = FileManager.default.contents(atPath: "\(path)/\(name)") else { continue }
                        seeds[name] = [UInt8(kind)] + [UInt8](data)
                    }
                }
            }
            return seeds
        }) { return }
        FuzzDriver.run(test)
    }

    static let test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt = { data, size in
        var input = FuzzInput(data, size)
        let kind = input.byte() % 3
        let bytes = input.rest()
        switch kind {
        case 0:
            if let infos = try? SecurityInfos(derEncoded: bytes) { check(infos, within: bytes) }
        case 1:
            if let infos = try? SecurityInfos(dg14: bytes) { check(infos, within: bytes) }
        default:
            if let cardSecurity = try? CardSecurity(rawBytes: bytes) {
                fuzzCheck(cardSecurity.eContent.count <= bytes.count, "eContent longer than EF.CardSecurity")
                check(cardSecurity.securityInfos, within: bytes)
            }
        }
        return 0
    }

    static func check(_ infos: SecurityInfos, within bytes: [UInt8]) {
        fuzzCheck(infos.rawBytes.count <= bytes.count, "SecurityInfos longer than the input")
        let typed = infos.paceInfos.count + infos.paceDomainParameterInfos.count + infos.chipAuthenticationInfos.count
            + infos.chipAuthenticationDomainParameterInfos.count + infos.chipAuthenticationPublicKeyInfos.count
            + infos.activeAuthenticationInfos.count + infos.unknown.count
        fuzzCheck(typed == infos.infos.count, "\(infos.infos.count) SecurityInfos, \(typed) classified")
        do {
            let again = try SecurityInfos(derEncoded: infos.rawBytes)
            fuzzCheck(again == infos, "SecurityInfos re-parsed from its own bytes differ")
        } catch {
            fuzzCheck(false, "SecurityInfos' own bytes do not re-parse: \(error)")
        }
        for parameters in PACEParameters.supported(in: infos) {
            fuzzCheck(infos.paceInfos.contains(parameters.info), "PACE parameters from no PACEInfo")
        }
        if let strongest = try? PACEParameters.strongest(in: infos) {
            fuzzCheck(infos.paceInfos.contains(strongest.info), "strongest PACE parameters from no PACEInfo")
        }
        do {
            if let ca = try ChipAuthenticationParameters.select(from: infos) {
                fuzzCheck(infos.chipAuthenticationPublicKeyInfos.contains { $0.subjectPublicKeyInfo == ca.publicKeyInfo },
                          "CA parameters with a key DG14 does not hold")
            }
        } catch let error as ProtocolError {
            fuzzCheck(!error.code.isEmpty, "CA selection failure without a code")
        } catch {
            fuzzCheck(false, "CA selection threw a non-protocol error: \(error)")
        }
    }
}
