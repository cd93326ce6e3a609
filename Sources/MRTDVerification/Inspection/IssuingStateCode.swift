/// ICAO Doc 9303-3 §5 issuing state / nationality codes (three letters, `D` for Germany) to the
/// ISO 3166-1 alpha-2 codes that certificates carry in their countryName (Doc 9303-12 §7.1.1.1).
///
/// The table is ISO 3166-1 (alpha-3 to alpha-2, from the Debian iso-codes data), plus the Doc 9303-3
/// codes that are not ISO 3166-1 alpha-3: `D` (Germany, also written `D<<`), `GBD`, `GBN`, `GBO`,
/// `GBP`, `GBS` (British nationality categories, documents issued under the United Kingdom's CSCA),
/// `EUE` (European Union, CSCA country `EU`) and `RKS` / `XXK` (Kosovo, CSCA country `XK`). Codes of
/// organizations without an ISO 3166 country (`UNO`, `UNA`, `UNK`, `XOM`, `XPO`, `XCC`, ...) map to
/// nothing: the country check is then `undetermined`. `UTO` (Utopia, the Doc 9303 specimen state)
/// maps to `UT`, the country of the TEST-ONLY PKI in `certs/test`; no real State has either code.
public enum IssuingStateCode {
    /// The alpha-2 country for a Doc 9303 issuing state (fillers `<` ignored, case-insensitive), or `nil`.
    public static func alpha2(forICAO code: String) -> String? {
        let key = code.uppercased().filter { $0 != "<" }
        if let special = specialCases[key] { return special }
        return table[key]
    }

    static let specialCases: [String: String] = [
        "D": "DE", "GBD": "GB", "GBN": "GB", "GBO": "GB", "GBP": "GB", "GBS": "GB", "EUE": "EU", "RKS": "XK", "XXK": "XK",
        "UTO": "UT",
    ]

    /// `AAABB` pairs: alpha-3 then alpha-2.
    static let table: [String: String] = {
        let pairs = """
            ABWAW AFGAF AGOAO AIAAI ALAAX ALBAL ANDAD AREAE ARGAR ARMAM ASMAS ATAAQ ATFTF ATGAG AUSAU AUTAT
            AZEAZ BDIBI BELBE BENBJ BESBQ BFABF BGDBD BGRBG BHRBH BHSBS BIHBA BLMBL BLRBY BLZBZ BMUBM BOLBO
            BRABR BRBBB BRNBN BTNBT BVTBV BWABW CAFCF CANCA CCKCC CHECH CHLCL CHNCN CIVCI CMRCM CODCD COGCG
            COKCK COLCO COMKM CPVCV CRICR CUBCU CUWCW CXRCX CYMKY CYPCY CZECZ DEUDE DJIDJ DMADM DNKDK DOMDO
            DZADZ ECUEC EGYEG ERIER ESHEH ESPES ESTEE ETHET FINFI FJIFJ FLKFK FRAFR FROFO FSMFM GABGA GBRGB
            GEOGE GGYGG GHAGH GIBGI GINGN GLPGP GMBGM GNBGW GNQGQ GRCGR GRDGD GRLGL GTMGT GUFGF GUMGU GUYGY
            HKGHK HMDHM HNDHN HRVHR HTIHT HUNHU IDNID IMNIM INDIN IOTIO IRLIE IRNIR IRQIQ ISLIS ISRIL ITAIT
            JAMJM JEYJE JORJO JPNJP KAZKZ KENKE KGZKG KHMKH KIRKI KNAKN KORKR KWTKW LAOLA LBNLB LBRLR LBYLY
            LCALC LIELI LKALK LSOLS LTULT LUXLU LVALV MACMO MAFMF MARMA MCOMC MDAMD MDGMG MDVMV MEXMX MHLMH
            MKDMK MLIML MLTMT MMRMM MNEME MNGMN MNPMP MOZMZ MRTMR MSRMS MTQMQ MUSMU MWIMW MYSMY MYTYT NAMNA
            NCLNC NERNE NFKNF NGANG NICNI NIUNU NLDNL NORNO NPLNP NRUNR NZLNZ OMNOM PAKPK PANPA PCNPN PERPE
            PHLPH PLWPW PNGPG POLPL PRIPR PRKKP PRTPT PRYPY PSEPS PYFPF QATQA REURE ROURO RUSRU RWARW SAUSA
            SDNSD SENSN SGPSG SGSGS SHNSH SJMSJ SLBSB SLESL SLVSV SMRSM SOMSO SPMPM SRBRS SSDSS STPST SURSR
            SVKSK SVNSI SWESE SWZSZ SXMSX SYCSC SYRSY TCATC TCDTD TGOTG THATH TJKTJ TKLTK TKMTM TLSTL TONTO
            TTOTT TUNTN TURTR TUVTV TWNTW TZATZ UGAUG UKRUA UMIUM URYUY USAUS UZBUZ VATVA VCTVC VENVE VGBVG
            VIRVI VNMVN VUTVU WLFWF WSMWS YEMYE ZAFZA ZMBZM ZWEZW
            """.split(whereSeparator: { $0 == " " || $0 == "\n" })
        var out: [String: String] = [:]
        for pair in pairs { out[String(pair.prefix(3))] = String(pair.suffix(2)) }
        return out
    }()
}
