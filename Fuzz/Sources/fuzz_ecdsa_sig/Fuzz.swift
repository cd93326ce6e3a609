import FuzzSupport
import MRTDCore
import MRTDCrypto
import MRTDTesting

/// ECDSA signature encodings (BSI TR-03111 plain `r || s` and X9.62 DER `ECDSA-Sig-Value`), first
/// byte even: the rest as plain, odd: as DER. Plain → DER agrees between the Swift encoder and
/// OpenSSL's, and DER → plain → DER → plain is stable; a DER value that parses converts to plain
/// at its own width; verification with the test DSC's key (both encodings) returns a verdict,
/// never throws or traps.
@main enum FuzzECDSASignature {
    static func main() {
        if FuzzSeeds.writeIfAsked({
            let key = try TestPKI.dscKey()
            let digest = DigestAlgorithm.sha256.hash(message)
            let der = try key.ecdsaSign(digest: digest, plain: false)
            let plain = try key.ecdsaSign(digest: digest, plain: true)
            return ["der_p256": [1] + der, "plain_p256": [0] + plain, "der_small": [1, 0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x80]]
        }) { return }
        FuzzDriver.run(test)
    }

    static let message = Array("mrtdd fuzz_ecdsa_sig".utf8)
    static let publicKey = try! PublicKey(subjectPublicKeyInfo: TestPKI.dscKey().subjectPublicKeyInfo())

    static let test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt = { data, size in
        var input = FuzzInput(data, size)
        let asDER = input.bool()
        let bytes = input.rest()
        if asDER {
            if let (r, s) = ECDSASignatureEncoding.derComponents(bytes) {
                let width = max(r.drop { $0 == 0 }.count, s.drop { $0 == 0 }.count, 1)
                guard let plain = ECDSASignatureEncoding.plain(der: bytes, length: width) else {
                    fuzzCheck(false, "a parsed ECDSA-Sig-Value does not convert to plain at its own width")
                    return 0
                }
                fuzzCheck(plain.count == 2 * width, "plain signature of \(plain.count) bytes for width \(width)")
                let again = ECDSASignatureEncoding.der(r: Array(plain[..<width]), s: Array(plain[width...]))
                fuzzCheck(ECDSASignatureEncoding.plain(der: again, length: width) == plain, "DER → plain → DER → plain differs")
                let narrower = ECDSASignatureEncoding.plain(der: bytes, length: width - 1)
                fuzzCheck(narrower?.isEmpty ?? true, "a plain signature narrower than r or s")
            }
            _ = try? publicKey.verify(signature: bytes, message: message, scheme: .ecdsa(.sha256))
        } else {
            let openSSL = PublicKey.plainToDER(bytes)
            if !bytes.isEmpty, bytes.count % 2 == 0 {
                let half = bytes.count / 2
                let swift = ECDSASignatureEncoding.der(r: Array(bytes[..<half]), s: Array(bytes[half...]))
                fuzzCheck(openSSL == nil || openSSL == swift, "OpenSSL and Swift encode r || s differently")
                fuzzCheck(ECDSASignatureEncoding.plain(der: swift, length: half) == bytes, "plain → DER → plain differs")
            } else {
                fuzzCheck(openSSL == nil, "an odd-length plain signature converted")
            }
            _ = try? publicKey.verify(signature: bytes, message: message, scheme: .ecdsaPlain(.sha256))
        }
        return 0
    }
}
