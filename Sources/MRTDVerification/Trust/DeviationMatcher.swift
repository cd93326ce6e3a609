import FoundationEssentials
import MRTDCore
import MRTDCrypto
import SwiftASN1

/// Matches a document against verified deviation lists and decides, per deviation, whether a
/// failed check is tolerated (Doc 9303-12 §10; BSI TR-03135 asks the inspection system to take
/// deviation lists into account and leaves the decision to its policy, which is this one).
///
/// A deviation applies to a document when the list's signer chains to a CSCA of the document's
/// own country (a State can only declare deviations of its own documents) and every field of its
/// `DeviationDocuments` that is present matches: document type (DG1), document signer (issuer and
/// serial, subject key identifier or certificate digest), issuance period (the SOD's signingTime;
/// without one, a deviation bounded by dates does not match) and document numbers (DG1).
struct DeviationMatcher {
    var report: PassiveAuthenticationReport
    var mrz: MRZ?
    var structureFailures: [Int]
    var checks: ReadResult.Checks

    func matches(in lists: [DeviationList]) -> [ReadResult.DeviationMatch] {
        // The document's country: its verified CSCA, else the issuer of the DSC the SOD names.
        guard let country = report.csca?.subject.country ?? report.dsc?.issuer.country else { return [] }
        var out: [ReadResult.DeviationMatch] = []
        for list in lists where list.signerCSCA.subject.country == country {
            for deviation in list.deviations where applies(deviation.documents, list: list) {
                for description in deviation.descriptions {
                    out.append(match(description, list: list))
                }
            }
        }
        return out
    }

    func applies(_ documents: DeviationList.Documents, list: DeviationList) -> Bool {
        if let type = documents.documentType {
            guard let code = mrz?.documentCode else { return false }
            let matchesType = code == type || (type.count == 1 && code.hasPrefix(type))
            guard matchesType else { return false }
        }
        if let identifier = documents.dscIdentifier {
            guard let dsc = report.dsc else { return false }
            switch identifier {
            case .issuerAndSerialNumber(let issuer, let serial):
                guard dsc.issuer == issuer,
                      SignedDataVerifier.normalizedSerial(dsc.serialNumber) == SignedDataVerifier.normalizedSerial(serial)
                else { return false }
            case .subjectKeyIdentifier(let ski):
                guard dsc.subjectKeyIdentifier == ski else { return false }
            case .certificateDigest(let digest):
                guard list.digest.hash(dsc.derBytes) == digest else { return false }
            }
        }
        if documents.issuedFrom != nil || documents.issuedUntil != nil {
            guard let signed = report.signingTime else { return false }
            if let from = documents.issuedFrom, signed < from { return false }
            if let until = documents.issuedUntil, signed > until { return false }
        }
        if let numbers = documents.documentNumbers {
            guard let number = mrz?.documentNumber, numbers.contains(number) else { return false }
        }
        return true
    }

    /// What one matching deviation means for this document's checks.
    func match(_ description: DeviationList.Description, list: DeviationList) -> ReadResult.DeviationMatch {
        typealias T = DeviationList.DeviationType
        var effect = "informational"
        var check: String?
        var explanation = "listed by the issuer; no check failed that it covers"
        var affects: String?
        let paReason = report.result == .failed ? report.reason : nil

        func tolerate(_ name: String, _ text: String) {
            effect = "tolerated"
            check = name
            explanation = text
        }
        func refuse(_ name: String, _ text: String) {
            effect = "notTolerated"
            check = name
            explanation = text
        }

        switch description.type {
        case .dgHashWrong:
            affects = description.parameter.map(Self.dataGroupName)
            let mismatched = report.fileHashes.filter { $0.value == .invalid }.compactMap(\.key.dataGroupNumber)
            let covered = description.parameter.map { n in mismatched.allSatisfy { $0 == n } } ?? true
            if paReason == .dataGroupHashMismatch, report.signatureAndChainValid, covered,
               !report.fileHashes.values.contains(.missing) {
                tolerate("passiveAuthentication",
                         "the hash mismatch of \(mismatched.sorted().map { "DG\($0)" }.joined(separator: ", ")) is a listed defect; the SOD signature and chain verified, but the content of that data group is not authenticated")
            } else if paReason == .dataGroupHashMismatch {
                refuse("passiveAuthentication", "a data group hash failed that the deviation does not cover")
            }
        case .comInconsistent:
            if paReason == .comSodMismatch, report.signatureAndChainValid {
                tolerate("passiveAuthentication", "EF.COM and the SOD disagree, a listed defect; every data group read matched its signed hash")
            }
        case .sodSignatureWrong, .dsSignature, .dsEncoding:
            let reasons: [PassiveAuthenticationReason] = [.sodSignatureInvalid, .dscSignatureInvalid, .dscInvalid, .signedAttributesInvalid]
            if let paReason, reasons.contains(paReason) {
                refuse("passiveAuthentication",
                       "a signature or certificate defect is listed, but without a verified signature nothing authenticates the document's data; mrtdd does not accept it")
            }
        case .dgMalformed:
            affects = description.parameter.map(Self.dataGroupName)
            let covered = description.parameter.map { n in structureFailures.allSatisfy { $0 == n } } ?? true
            if !structureFailures.isEmpty, covered {
                tolerate("dataGroupStructure", "the malformed data group is a listed defect; its hash matched the signed SOD")
            } else if !structureFailures.isEmpty {
                refuse("dataGroupStructure", "a data group is malformed that the deviation does not cover")
            }
        case .mrzWrongData:
            affects = description.parameter.map(Self.mrzFieldName)
            if checks.accessKeyMatch?.result == .failed {
                tolerate("accessKeyMatch", "the chip's MRZ differs from the printed one, a listed defect")
            }
        case .mrzWrongCheckDigit:
            affects = description.parameter.map(Self.mrzFieldName)
            if let mrz, !mrz.hasValidCheckDigits {
                tolerate("documentInfo", "the wrong check digit in DG1 is a listed defect")
            }
        case .aaKeyCompromised:
            if [.passed, .passedUnverifiedKey].contains(checks.activeAuthentication.result) {
                refuse("activeAuthentication",
                       "the issuer declares the Active Authentication key compromised: a passed Active Authentication proves nothing against cloning")
            }
        case .certOrKey, .cscaEncoding, .lds, .mrz, .chip, .nationalUse, .unknown:
            break
        }
        return ReadResult.DeviationMatch(
            type: description.type.rawValue, oid: description.oid.description,
            affects: affects, description: description.text, effect: effect, check: check, explanation: explanation,
            source: list.source, signer: list.signer.subject.description)
    }

    /// `Datagroup ::= INTEGER { dg1(1) … dg16(16), sod(20), com(21) }`.
    static func dataGroupName(_ value: Int) -> String {
        switch value {
        case 1...16: "DG\(value)"
        case 20: "EF.SOD"
        case 21: "EF.COM"
        default: "datagroup \(value)"
        }
    }

    /// `MRZField`.
    static func mrzFieldName(_ value: Int) -> String {
        let names = ["generic", "documentCode", "issuingState", "personName", "documentNumber", "nationality",
                     "dateOfBirth", "sex", "dateOfExpiry", "optionalData"]
        return names.indices.contains(value) ? names[value] : "field \(value)"
    }
}
