//! Tokens of the shapes their providers document, then the tokens of no one provider (JSON Web
//! Tokens, bearer and `Authorization` credentials).

use super::LeakKind;
use super::randomness::{basic_credentials, random_enough};
use super::rule::{Anchor, Rule, WORD, leak_if};

/// An ASCII letter or digit.
fn alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}

/// An ASCII capital letter or digit.
fn capital_or_digit(b: u8) -> bool {
    b.is_ascii_uppercase() || b.is_ascii_digit()
}

/// An ASCII letter, digit or `_`.
fn alnum_or_underscore(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// An ASCII letter, digit, `_` or `-` (base64url).
fn url_safe(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-')
}

/// An ASCII letter, digit, `.` or `-` (a Slack token after `xox`).
fn alnum_dot_or_dash(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-')
}

/// An ASCII letter, digit or `-`.
fn alnum_or_dash(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-'
}

/// An ASCII letter, digit or `.`.
fn alnum_or_dot(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'.'
}

/// An ASCII letter, digit or `$` (a Braintree token after `access_token$`).
fn alnum_or_dollar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'$'
}

/// A lower-case hexadecimal digit.
fn hex_lower(b: u8) -> bool {
    b.is_ascii_digit() || (b'a'..=b'f').contains(&b)
}

/// A hexadecimal digit of either case.
fn hex(b: u8) -> bool {
    b.is_ascii_hexdigit()
}

/// An ASCII lower-case letter or digit.
fn lower_or_digit(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit()
}

/// A character of standard base64 but `=` (a letter, a digit, `+`, `/`).
fn base64_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/')
}

/// A character of base64 of either alphabet, `=` included.
fn any_base64(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'_' | b'-')
}

/// A character of base64url, `=` or `.` (an Atlassian token's or a Bitbucket app password's).
fn url_safe_padded(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'=' | b'.')
}

/// The rules of this family, in the order the check tries them.
pub(super) fn rules() -> Vec<Rule> {
    [
        version_control_and_chat(),
        cloud(),
        services_and_payment(),
        mail_registries_ci_and_ai(),
        of_no_provider(),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// Version control and chat.
fn version_control_and_chat() -> Vec<Rule> {
    use LeakKind::*;
    vec![
        // Version control. A vendor's prefix is found after a letter or digit too (`[USghp_…]`,
        // the `n` of a `\nghp_…` escape) when no word holds it followed by its token's body
        // ([`Rule::prefixed`]); each prefix that ordinary words end in keeps a boundary before it
        // ([`Rule::provider`], [`Rule::token`]), and says which words.
        Rule::prefixed(
            Token,
            "a GitHub token",
            "gh[pousr]_[A-Za-z0-9]{30,}",
            &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
            (30, alnum),
        ),
        Rule::prefixed(
            Token,
            "a GitHub token",
            "github_pat_[A-Za-z0-9_]{22,}",
            &["github_pat_"],
            (22, alnum_or_underscore),
        ),
        Rule::prefixed(
            Token,
            "a GitLab token",
            r"gl(?:pat|dt|ptt|rt|soat|cbt|imt|agent|oas|ft|ffct|wt)-[A-Za-z0-9_\-]{20,}",
            &[
                "glpat-", "gldt-", "glptt-", "glrt-", "glsoat-", "glcbt-", "glimt-", "glagent-", "gloas-",
                "glft-", "glffct-", "glwt-",
            ],
            (20, url_safe),
        ),
        Rule::prefixed(
            Token,
            "a GitLab runner registration token",
            r"GR1348941[A-Za-z0-9_\-]{20,}",
            &["GR1348941"],
            (20, url_safe),
        ),
        Rule::prefixed(
            Token,
            "a Bitbucket app password",
            r"ATBB[A-Za-z0-9_=.\-]{24,}",
            &["ATBB"],
            (24, url_safe_padded),
        ),
        Rule::prefixed(
            Token,
            "an Atlassian token",
            r"AT(?:ATT|CTT)3[A-Za-z0-9_=\-]{40,}",
            &["ATATT3", "ATCTT3"],
            (40, url_safe_padded),
        ),
        // Chat.
        Rule::prefixed(
            Token,
            "a Slack token",
            r"xox(?:[abposr]|e(?:\.xox[bp])?)-[A-Za-z0-9\-]{10,}",
            &["xox"],
            (12, alnum_dot_or_dash),
        ),
        Rule::prefixed(
            Token,
            "a Slack app token",
            r"xapp-[0-9]-[A-Za-z0-9\-]{10,}",
            &["xapp-"],
            (12, alnum_or_dash),
        ),
        Rule::new(
            Token,
            "a Slack webhook",
            r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_\-]{16,}",
            &["hooks.slack.com/"],
        ),
        Rule::new(
            Token,
            "a Microsoft Teams webhook",
            r"(?:webhook|outlook)\.office\.com/webhook(?:b2)?/[A-Za-z0-9@._\-/]{16,}",
            &["webhook.office.com/", "outlook.office.com/webhook"],
        ),
        Rule::new(
            Token,
            "a Discord webhook",
            r"discord(?:app)?\.com/api/webhooks/[0-9]{5,}/[A-Za-z0-9_\-]{20,}",
            &["discord"],
        ),
        Rule::new(Token, "a Telegram bot token", r"[0-9]{8,10}:AA[A-Za-z0-9_\-]{33}", &[":AA"]),
    ]
}

/// Cloud providers.
fn cloud() -> Vec<Rule> {
    use LeakKind::*;
    vec![
        // Cloud.
        Rule::prefixed(
            Token,
            "an AWS access key id",
            "(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}",
            &["AKIA", "ASIA", "ABIA", "ACCA", "A3T"],
            (16, capital_or_digit),
        )
        .ended(),
        Rule::prefixed(Token, "a Google API key", r"AIza[0-9A-Za-z_\-]{35}", &["AIza"], (35, url_safe)),
        Rule::prefixed(
            Token,
            "a Google OAuth client secret",
            r"GOCSPX-[A-Za-z0-9_\-]{20,}",
            &["GOCSPX-"],
            (20, url_safe),
        ),
        Rule::prefixed(
            Token,
            "a Google OAuth token",
            r"ya29\.[0-9A-Za-z_\-]{20,}",
            &["ya29."],
            (20, url_safe),
        ),
        // A boundary: `1//0` is a division by zero in code (`n1//0`, `21//0`).
        Rule::provider("a Google OAuth token", r"1//0[0-9A-Za-z_\-]{30,}", &["1//0"]),
        Rule::new(
            Token,
            "an Azure client secret",
            r"[A-Za-z0-9_~.\-]{3}[0-9]Q~[A-Za-z0-9_~.\-]{31,34}",
            &["Q~"],
        ),
        Rule::prefixed(
            Token,
            "a DigitalOcean token",
            "do[opr]_v1_[a-f0-9]{64}",
            &["dop_v1_", "doo_v1_", "dor_v1_"],
            (64, hex_lower),
        ),
        Rule::prefixed(Token, "a Heroku token", r"HRKU-[A-Za-z0-9_\-]{20,}", &["HRKU-"], (20, url_safe)),
        // A boundary: words hold `LTAI` followed by letters (`ALTAIRCONFIGURATION`, `SALTAIRE`).
        Rule::provider("an Alibaba Cloud access key id", "LTAI[A-Za-z0-9]{12,20}", &["LTAI"]).ended(),
        Rule::prefixed(
            Token,
            "a HashiCorp Vault token",
            r"hv[sbr]\.[A-Za-z0-9_\-]{24,}",
            &["hvs.", "hvb.", "hvr."],
            (24, url_safe),
        ),
        Rule::new(
            Token,
            "a Terraform Cloud token",
            r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_\-=]{60,}",
            &[".atlasv1."],
        ),
        Rule::prefixed(
            Token,
            "a Doppler token",
            r"dp\.(?:pt|st|ct|sa|scim|audit)\.[A-Za-z0-9]{40,}",
            &["dp."],
            (43, alnum_or_dot),
        ),
        Rule::prefixed(Token, "a Pulumi token", "pul-[a-f0-9]{40}", &["pul-"], (40, hex_lower)),
        Rule::prefixed(Token, "a Databricks token", "dapi[a-f0-9]{32}", &["dapi"], (32, hex_lower)),
        Rule::prefixed(
            Token,
            "a Grafana token",
            "glc_[A-Za-z0-9+/]{32,}|glsa_[A-Za-z0-9]{32}_[a-fA-F0-9]{8}",
            &["glc_", "glsa_"],
            (32, base64_char),
        ),
        Rule::prefixed(
            Token,
            "a New Relic key",
            r"NR(?:AK|II|JS)-[A-Za-z0-9_\-]{20,}",
            &["NRAK-", "NRII-", "NRJS-"],
            (20, url_safe),
        ),
        Rule::prefixed(
            Token,
            "a Sentry token",
            "sntry[su]_[A-Za-z0-9+/=_]{40,}",
            &["sntrys_", "sntryu_"],
            (40, any_base64),
        ),
        Rule::prefixed(
            Token,
            "a Cloudflare origin CA key",
            r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}",
            &["v1.0-"],
            (24, hex_lower),
        ),
        // A boundary: names end in `fo1_` (`info1_`, `photo1_`), and a snake_case name fits the body.
        Rule::provider("a Fly.io token", r"fo1_[A-Za-z0-9_\-]{40,}", &["fo1_"]),
        // A boundary: `upscale_` and `downscale_` hold `pscale_`, and a snake_case name fits the body.
        Rule::provider("a PlanetScale token", r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_\-.]{30,}", &["pscale_"]),
        Rule::prefixed(Token, "a Supabase key", "sbp_[a-f0-9]{40}", &["sbp_"], (40, hex_lower)),
        // A boundary: names end in `sb` (`usb_secret_`, `dsb_secret_`), and a snake_case name fits the body.
        Rule::provider("a Supabase key", r"sb_secret_[A-Za-z0-9_\-]{20,}", &["sb_secret_"]),
    ]
}

/// Services and payment.
fn services_and_payment() -> Vec<Rule> {
    use LeakKind::*;
    vec![
        // Services.
        // A boundary: names end in `lin` (`kotlin_api_`, `berlin_api_`).
        Rule::provider("a Linear key", "lin_api_[A-Za-z0-9]{40}", &["lin_api_"]),
        // A boundary: names end in `secret_` (`topsecret_`, `mysecret_`).
        Rule::provider("a Notion token", "secret_[A-Za-z0-9]{43}", &["secret_"]),
        Rule::prefixed(Token, "a Notion token", "ntn_[A-Za-z0-9]{40,}", &["ntn_"], (40, alnum)),
        // A boundary: `configd_` holds `figd_`, and a snake_case name fits the body.
        Rule::provider("a Figma token", r"figd_[A-Za-z0-9_\-]{40,}", &["figd_"]),
        // A boundary: words begin and end in `pat` (`compat`, `spatial`, `dispatch`).
        Rule::provider("an Airtable token", r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}", &["pat"]),
        Rule::prefixed(Token, "a Postman key", "PMAK-[a-f0-9]{24}-[a-f0-9]{34}", &["PMAK-"], (24, hex_lower)),
        Rule::prefixed(
            Token,
            "a Contentful token",
            r"CFPAT-[A-Za-z0-9_\-]{40,}",
            &["CFPAT-"],
            (40, url_safe),
        ),
        Rule::prefixed(
            Token,
            "a Shopify token",
            "shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}",
            &["shpat_", "shpca_", "shppa_", "shpss_"],
            (32, hex),
        ),
        Rule::prefixed(
            Token,
            "a 1Password service account token",
            r"ops_eyJ[A-Za-z0-9+/=_\-]{40,}",
            &["ops_eyJ"],
            (40, any_base64),
        ),
        Rule::prefixed(
            Token,
            "a Mapbox secret token",
            r"sk\.eyJ[A-Za-z0-9_\-]{20,}\.[A-Za-z0-9_\-]{20,}",
            &["sk.eyJ"],
            (20, url_safe),
        ),
        // A boundary, and none of `_`, `-` or `.` before it: words end in `sl` (`ssl.`, `html.`)
        // before a member's long name.
        Rule::token(Token, "a Dropbox token", r"sl\.[A-Za-z0-9_\-]{100,}", &["sl."]),
        Rule::new(
            Token,
            "a Firebase server key",
            r"AAAA[A-Za-z0-9_\-]{7}:APA91b[A-Za-z0-9_\-]{100,}",
            &[":APA91b"],
        ),
        // Payment.
        Rule::prefixed(
            Token,
            "a Stripe key",
            "(?:sk|rk)_live_[A-Za-z0-9]{16,}",
            &["sk_live_", "rk_live_"],
            (16, alnum),
        ),
        // A boundary: test names end in `sk_test_` and `rk_test_` (`task_test_`, `risk_test_`,
        // `work_test_`) before a CamelCase name.
        Rule::provider("a Stripe key", "(?:sk|rk)_test_[A-Za-z0-9]{16,}", &["sk_test_", "rk_test_"]),
        Rule::prefixed(Token, "a Stripe key", "whsec_[A-Za-z0-9]{24,}", &["whsec_"], (24, alnum)),
        Rule::prefixed(
            Token,
            "a Square token",
            r"sq0(?:atp|csp)-[A-Za-z0-9_\-]{22,}",
            &["sq0atp-", "sq0csp-"],
            (22, url_safe),
        ),
        // A boundary: upper-case names and base64 text hold `EAA` (`IDEAAPPROVED`, `AREAA…`).
        Rule::provider("a Meta or Square access token", r"EAA[A-Za-z0-9_\-]{60,}", &["EAA"]),
        Rule::prefixed(
            Token,
            "a Braintree token",
            r"access_token\$production\$[0-9a-z]{16}\$[0-9a-f]{32}",
            &["access_token$"],
            (60, alnum_or_dollar),
        ),
        Rule::prefixed(
            Token,
            "a Razorpay key",
            "rzp_(?:live|test)_[A-Za-z0-9]{14,}",
            &["rzp_live_", "rzp_test_"],
            (14, alnum),
        ),
        // A boundary, and none of `_`, `-` or `.` before it: words end in `SK` (`TASK`, `DISK`)
        // before a hexadecimal digest.
        Rule::token(Token, "a Twilio key", "SK[0-9a-fA-F]{32}", &["SK"]).ended(),
    ]
}

/// Mail, package registries, CI and AI services.
fn mail_registries_ci_and_ai() -> Vec<Rule> {
    use LeakKind::*;
    vec![
        // Mail.
        // A boundary, and none of `_`, `-` or `.` before it: names end in `SG` (`MSG.`, `CSG.`),
        // and dotted constant names fit the body (`MSG.CONNECTION_REFUSED.DESCRIPTION_TEXT`).
        Rule::token(Token, "a SendGrid key", r"SG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{16,64}", &["SG."]),
        // A boundary, and none of `_`, `-` or `.` before it: words end in `key-` (`monkey-`,
        // `hotkey-`) before a hexadecimal digest.
        Rule::token(Token, "a Mailgun key", "key-[0-9a-f]{32}", &["key-"]).ended(),
        Rule::new(Token, "a Mailchimp key", "(?P<leak>[0-9a-f]{32}-us[0-9]{1,2})", &["-us"]).ended(),
        Rule::prefixed(
            Token,
            "a Brevo key",
            "x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}",
            &["xkeysib-", "xsmtpsib-"],
            (64, hex_lower),
        ),
        // A boundary, and none of `_`, `-` or `.` before it: words end in `re_` (`are_`, `store_`).
        Rule::token(Token, "a Resend key", "re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}", &["re_"]),
        // Package registries.
        Rule::prefixed(Token, "an npm token", "npm_[A-Za-z0-9]{36}", &["npm_"], (36, alnum)).ended(),
        Rule::prefixed(Token, "a PyPI token", r"pypi-AgE[A-Za-z0-9_\-]{20,}", &["pypi-AgE"], (20, url_safe)),
        // A boundary, and none of `_`, `-` or `.` before it: words end in `cio` (`socio`, `precio`)
        // that a CamelCase name continues.
        Rule::token(Token, "a crates.io token", "cio[A-Za-z0-9]{32}", &["cio"]).ended(),
        // A boundary, and none of `_`, `-` or `.` before it: words end in `oy` before a `2`
        // (`deploy2`, `toy2`) that a lower-case name continues.
        Rule::token(Token, "a NuGet key", "oy2[a-z0-9]{43}", &["oy2"]).ended(),
        Rule::prefixed(Token, "a RubyGems key", "rubygems_[a-f0-9]{48}", &["rubygems_"], (48, hex_lower)),
        Rule::prefixed(
            Token,
            "a Docker Hub token",
            r"dckr_(?:pat|oat)_[A-Za-z0-9_\-]{20,}",
            &["dckr_pat_", "dckr_oat_"],
            (20, url_safe),
        ),
        Rule::prefixed(
            Token,
            "a JFrog token",
            "AKCp[A-Za-z0-9]{60,}|cmVmdGtuOjAxOj[A-Za-z0-9]{30,}",
            &["AKCp", "cmVmdGtuOjAxOj"],
            (30, alnum),
        ),
        // A boundary: names end in `hf` (`vhf_`, `uhf_`: radio bands) before a CamelCase name.
        Rule::provider("a Hugging Face token", "hf_[A-Za-z]{30,}", &["hf_"]).ended(),
        Rule::prefixed(Token, "a Clojars token", "CLOJARS_[a-z0-9]{60}", &["CLOJARS_"], (60, lower_or_digit)),
        // CI.
        Rule::prefixed(
            Token,
            "a CircleCI token",
            "CCIP(?:AT|RJ)_[A-Za-z0-9]{20,}_[a-f0-9]{40}",
            &["CCIPAT_", "CCIPRJ_"],
            (20, alnum),
        ),
        Rule::prefixed(Token, "a Buildkite token", "bkua_[a-f0-9]{40}", &["bkua_"], (40, hex_lower)),
        Rule::prefixed(
            Token,
            "a SonarQube token",
            "sq[pua]_[a-f0-9]{40}",
            &["sqp_", "squ_", "sqa_"],
            (40, hex_lower),
        ),
        // AI services.
        // A boundary: words end in `sk-` (`task-`, `desk-`, `risk-`) that kebab-case continues.
        Rule::provider(
            "an OpenAI or Anthropic key",
            r"sk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}",
            &["sk-"],
        ),
        Rule::prefixed(Token, "a Groq key", "gsk_[A-Za-z0-9]{40,}", &["gsk_"], (40, alnum)),
        Rule::prefixed(Token, "a Replicate token", "r8_[A-Za-z0-9]{30,}", &["r8_"], (30, alnum)),
        Rule::prefixed(Token, "a Perplexity key", "pplx-[A-Za-z0-9]{40,}", &["pplx-"], (40, alnum)),
        Rule::prefixed(Token, "an xAI key", "xai-[A-Za-z0-9]{60,}", &["xai-"], (60, alnum)),
    ]
}

/// Tokens of no one provider.
fn of_no_provider() -> Vec<Rule> {
    use LeakKind::*;
    vec![
        // Tokens of no one provider.
        // A boundary: CamelCase words end in `eyJ` (`monkeyJump`, `surveyJson`).
        Rule::word(Jwt, "a JSON Web Token", r"eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*", &["eyJ"]),
        // Both parts JSON (`{"` is `eyJ`): a token no identifier (`monkeyJump.x`) is.
        Rule::prefixed(
            Jwt,
            "a JSON Web Token",
            r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]*",
            &["eyJ"],
            (8, url_safe),
        ),
        Rule::new(Bearer, "a bearer credential", format!(r"{WORD}(?i-u:bearer)[ \t]+(?P<leak>[A-Za-z0-9._~+/\-]{{12,}}=*)"), &["bearer"])
            .anchored(Anchor::Word)
            .folded()
            .judged(|_, caps| leak_if(caps, random_enough)),
        Rule::new(
            Bearer,
            "a credential in an Authorization header",
            r#"(?i-u:authorization)["']?[ \t]*[:=][ \t]*["']?(?:(?i-u:basic|token|digest|apikey|sso-key|negotiate|ntlm|bearer)[ \t]+)?(?P<leak>[A-Za-z0-9._~+/=:\-]{8,})"#,
            &["authorization"],
        )
        .folded()
        .judged(|_, caps| leak_if(caps, |v| random_enough(v) || basic_credentials(v))),
    ]
}

#[cfg(test)]
mod tests {
    use super::super::check_str;

    /// What the whole check finds in `text`: what it calls it, and the text it spans.
    fn caught(text: &str) -> Option<(&'static str, &str)> {
        check_str(text).err().map(|leak| (leak.what, &text[leak.start..leak.end]))
    }

    /// A token of each provider whose prefix no ordinary word holds followed by its body, what
    /// the check calls it, and ordinary text holding the prefix right after a letter.
    const AFTER_ANYTHING: [(&str, &str, &str); 44] = [
        ("GR1348941lvQRiHKwIb7011pOIQ8X", "a GitLab runner registration token", "the XGR1348941 tag"),
        ("ATBBokBWCx8q4eibWiFNDTPUIeIeShMFJ2oo991B421B", "a Bitbucket app password", "COMBATBBQ_SEASON_ONE"),
        (
            "ATATT3xFfGF0f8NxCGgx2oc3kauxGXEPBQcHGWAJfTr5CdYunVNLVJ4wyk3X",
            "an Atlassian token",
            "STATATT3 = 7",
        ),
        ("xapp-1-ANYBMINYEWK-3905215150838-b66c902f3283", "a Slack app token", "built wxapp-1-beta"),
        ("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", "a Google OAuth client secret", "myGOCSPX-config"),
        ("ya29.a0FdG6E6BIQ0R91HwnBWtoKVH8dpYeMkKpb5a8", "a Google OAuth token", "soya29.5 percent"),
        (
            "dop_v1_1d8f604c94d5fc576fccdef911eb37fd2b774e27b52f9aa6a0adfb90439403b6",
            "a DigitalOcean token",
            "hdop_v1_final",
        ),
        ("HRKU-6pexd6x6LVcVaSXcqfDWY-Kc9qDFBtwuvZv1X5Li", "a Heroku token", "SHRKU-2 closed"),
        ("hvs.a8loayC4AGTgrMrbIwtU7LC4otehhTdoXHxS8D4F0W6", "a HashiCorp Vault token", "ehvs.len() == 3"),
        ("dp.pt.e1YbqEghYsMGUBIxGOQuu1fCoTQXFFBXNo17KChxCO7", "a Doppler token", "the udp.pt.x field"),
        ("pul-395a88d6943b3fd84abf76856b5e6b53f765e6a7", "a Pulumi token", "an ampul-broken test"),
        ("dapi722bdbd6b47b86e3cb06c0de24f04298", "a Databricks token", "rapidapi key rotated"),
        ("glsa_ZUziIKeIkIXfGRDyqAhJQYtjHXOYkeS8_11070a8e", "a Grafana token", "openglc_init() and glsa_x"),
        ("NRAK-YDDPFMDUG4ZO2A3POJP40CQCMD7", "a New Relic key", "XNRAK-1 closed"),
        ("sntrys_+IA3vdP4uNbZuyWcY4EJNYDwM2tK1HxjzrvBIBN2JzMZndwdw", "a Sentry token", "xsntrys_count = 2"),
        (
            "v1.0-49ddd5464809a0db3bd82425-75195634ef3bd6219a7c15aaaae4dd989ae29b3e2b232c1bfa8a44edccf0a4e4b704c132df172c04dad17c21304a49363f8214f726ff0957c0886212a45c1448d66053c437d1877bb7",
            "a Cloudflare origin CA key",
            "libv1.0-beta released",
        ),
        ("sbp_3c2c07f245c45bc706720114e0f72e47601f8f81", "a Supabase key", "rsbp_value"),
        ("ntn_HcEEnUtd2VFsvCUh8x3VpPdygMkltIcn5jXTeipTD51CM2", "a Notion token", "tntn_flag"),
        ("PMAK-f3732e2b7af4c8d1cbafeed8-40512012a88be11286f754fc3bbc1c76c9", "a Postman key", "XPMAK-1"),
        ("CFPAT-ini29zAqDC8DVPXKXd4BEt_KIO2kCJo58QDeB7z2ROZ", "a Contentful token", "myCFPAT-docs"),
        ("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", "a Shopify token", "pshpat_index"),
        (
            "ops_eyJJBI+omKTbtn6BZwdJcfkAsoaHexa1Sf6zNKiMEFBlU2Yy1XzECn6uuHtn",
            "a 1Password service account token",
            "devops_eyJson = {}",
        ),
        (
            "sk.eyJ1IjoiiNUOGt-6MwPuvTPwWluShkl88NVuMO-5Hu0EBbew.w2n9eFXpx0yxBPt2HRDVae",
            "a Mapbox secret token",
            "task.eyJump()",
        ),
        ("whsec_sAaTfXe4GRKIJ4wG9H1wjhPW6V6ltAvI", "a Stripe key", "xwhsec_len"),
        ("sq0atp-P_RWICKAk_-_zzVn4i11Vv", "a Square token", "Xsq0atp-1"),
        (
            "access_token$production$v5zckqd6wtv862wi$e4c4d81d0aaa1ab01e89e558e859711c",
            "a Braintree token",
            "getaccess_token$production$",
        ),
        ("rzp_live_1bY0LuBIXn8Lsf", "a Razorpay key", "xrzp_live_mode"),
        (
            "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",
            "a Brevo key",
            "mxkeysib-v2",
        ),
        ("pypi-AgEIcHlwaS5vcmctB68O7O1Q5cCoI1RxYRzK", "a PyPI token", "mypypi-AgE3"),
        ("rubygems_9d8906475b1c5584401ccd5f23abf1be50cf7d0f83dbe592", "a RubyGems key", "myrubygems_mirror"),
        ("dckr_pat_JaT_l9wO9TVanrIIioRASCYFprS", "a Docker Hub token", "xdckr_pat_1"),
        (
            "AKCpvGFvAiQdEiTemO0moZIYZaVtc46vlupKROzWXugiKUIZN6bazrFkJ8g3MnttH1e0SV4aP",
            "a JFrog token",
            "XAKCp1 failed",
        ),
        ("cmVmdGtuOjAxOjE3q4JNOb7B05PFoEEeuuNbFTAFPId6ovHzj4vbIrXO", "a JFrog token", "xcmVmdGtuOjAxOj=="),
        (
            "CLOJARS_5iht8dxizejbp4i123atddipi2amb8s3fnf6tg9mv73gp1hccfs7opi1uau7",
            "a Clojars token",
            "MYCLOJARS_URL",
        ),
        (
            "CCIPAT_JTOtdJAC21niKH6e7jvomz_a766a7a5280bbc3f517391d0dcf142bea43748c2",
            "a CircleCI token",
            "XCCIPAT_1",
        ),
        ("bkua_41ee33693a6be60837e65f307607d1f1fa1ade9b", "a Buildkite token", "xbkua_user"),
        ("squ_9c0058ab8e8f23a63933879eecd9be85a2133e3c", "a SonarQube token", "msqa_team"),
        ("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", "a Groq key", "xgsk_tmp"),
        ("r8_6JqSIfBD16vAJyNKFbCEsLLl30lfAURoqaWqC", "a Replicate token", "ar8_tmp"),
        ("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", "a Perplexity key", "xpplx-beta"),
        (
            "xai-xQYag8grCaUAD4YKvU88WwVPJtknQNvpNUQMWl7lGxnYo9GkZbEaWGMbiUy6DNpQf2O7eLJy",
            "an xAI key",
            "taxai-report",
        ),
        ("glc_Kpa+TKZRxSC6uqYwD7eNwMAbCmgEXD9EuHTkomLq", "a Grafana token", "the openglc_ prefix"),
        ("ATCTT3xFfGF0f8NxCGgx2oc3kauxGXEPBQcHGWAJfTr5CdYunVNLV", "an Atlassian token", "ATCTT3"),
        ("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", "a Shopify token", "xshpss_"),
    ];

    #[test]
    fn a_token_of_a_distinctive_prefix_right_after_a_letter_or_digit_is_caught_and_words_holding_it_are_not()
    {
        for (token, what, ordinary) in AFTER_ANYTHING {
            for before in ["X", "v2", "cfg:\\n", " "] {
                let text = format!("{before}{token}]");
                assert_eq!(caught(&text), Some((what, token)), "{text:?}");
            }
            assert_eq!(check_str(ordinary), Ok(()), "{ordinary:?}");
        }
    }

    /// A token of each provider whose prefix ordinary words end in, what the check calls it, and
    /// ordinary text in which such a word runs on into what the token's body could be.
    const AFTER_A_BOUNDARY: [(&str, &str, &str); 21] = [
        (
            "1//0rQMv8ICPeqUOX3IqJl2LlrA3aSUuduAi8-mn04Z",
            "a Google OAuth token",
            "x = 21//0b10101010101010101010101010101010101",
        ),
        ("LTAIeblRy6WzuLWQCcvwbfHP", "an Alibaba Cloud access key id", "SALTAIRECONFIGURATION"),
        (
            "fo1_ndtpwsePfa9wXBS-6UL_M_goY6neaCGw95Mwr97kzKt",
            "a Fly.io token",
            "test_info1_handles_every_field_of_the_response_body",
        ),
        (
            "pscale_tkn_TiQxiQbTmuz3xWzGylvlsGah-VS6ts-d9wMzaw9nC6t",
            "a PlanetScale token",
            "fn upscale_oauth_avatar_images_for_retina_screens()",
        ),
        ("sb_secret_Zr8KpX2mQ7vL3nW9tB4cYq", "a Supabase key", "let usb_secret_handshake_timeout_ms = 5;"),
        (
            "lin_api_KOASdRFQeyznL5fB6PYDcjAHOh2PoFzM99dIBddl",
            "a Linear key",
            "kotlin_api_GeneratedClientForTheRemoteTagServicesV2 x",
        ),
        (
            "secret_F4capxzJWJ9G4KLy8GT7lLYMiK6Sw3mr5SiprduuVpF",
            "a Notion token",
            "topsecret_DocumentClassificationLevelForTheArchiveV12 x",
        ),
        (
            "figd_cchRBRrd8XZ0hj7z9Z5lOJcY-agrUZ0zw5rSf_g1",
            "a Figma token",
            "configd_reload_every_unit_and_socket_after_the_change",
        ),
        (
            "patASYVb2PgSVyBSb.82e7c878f28e66fb29f0ebdded1c30c17341fd6e5c0978a62ffa1ef47162bce7",
            "an Airtable token",
            "compatibilityModeV12.e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        ),
        (
            "sl.oDOVg58F8vm9v4P0dVnqF_IVfhtSWW3RHHqYcKDIT5jJ-IyqbKvzoVHoboH7g8ojIef_vw3xjNlIFJOX25anOKTXrlrjMfZBas8vdES4Qv",
            "a Dropbox token",
            "openssl.handshake_failed_because_the_peer_sent_an_unexpected_message_during_the_renegotiation_of_the_session",
        ),
        ("sk_test_FEMSlyAfhBr0ZLu9ujlRn0ul", "a Stripe key", "fn task_test_ReturnsEmptyWhenNoTags()"),
        (
            "EAAAqHfENI1SPQfPed-r-S4RMFYqkmc4L5Fll0vGW6AiSeJosNJ9tdYtCr8jHD9I",
            "a Meta or Square access token",
            "zero page: QEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        ),
        (
            "SK5261e05b21d42deb55498ec5eea09064",
            "a Twilio key",
            "volume DISK3f2a9c1e7b4d5f60a1b2c3d4e5f60718 ok",
        ),
        (
            "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",
            "a SendGrid key",
            "MSG.CONNECTION_REFUSED.DESCRIPTION_TEXT",
        ),
        (
            "key-b52bd4d8a0bfc8b1cec18a4700bc66b5",
            "a Mailgun key",
            "monkey-3f2a9c1e7b4d5f60a1b2c3d4e5f60718 passed",
        ),
        ("re_2pEm2yGl_4ZYM9yCrxuL8899fN4cH6LMY", "a Resend key", "store_Snapshot_ForEveryBookmarkAndTagList"),
        (
            "cio8lRhtUBvKzAm7NW6cSIjfraUsWURnro0",
            "a crates.io token",
            "socioEconomicIndicatorsForTheYear2024 x",
        ),
        (
            "oy2jz6o5okmbhk3kou6npm8fiaz9cfptc4u87vlhbe2bge",
            "a NuGet key",
            "deploy2stagingclustersfortheeuropeanregionwith2024 done",
        ),
        (
            "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",
            "a Hugging Face token",
            "vhf_ReceiverCalibrationTableForAllChannels x",
        ),
        (
            "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD",
            "an OpenAI or Anthropic key",
            "task-list-renders-every-bookmark-tag",
        ),
        ("eyJhbGciOiJub25lIn0.c29tZXRoaW5n.c2ln", "a JSON Web Token", "config.monkeyJsonParser.parseItNow.x"),
    ];

    #[test]
    fn a_token_of_a_prefix_that_ends_ordinary_words_is_caught_after_a_boundary_and_those_words_are_not() {
        for (token, what, ordinary) in AFTER_A_BOUNDARY {
            for before in [" ", "(", "cfg:\\n"] {
                let text = format!("{before}{token})");
                assert_eq!(caught(&text), Some((what, token)), "{text:?}");
            }
            assert_eq!(check_str(ordinary), Ok(()), "{ordinary:?}");
            // Cut where the prefix starts, the word's rest reads as the token: the letter before
            // it is what keeps the text clean.
            let prefix = (2..token.len()).rev().map(|n| &token[..n]).find(|p| ordinary.contains(p)).unwrap();
            let at = ordinary.find(prefix).unwrap();
            let cut = format!(" {}", &ordinary[at..]);
            assert_eq!(caught(&cut).map(|(w, _)| w), Some(what), "{cut:?}");
        }
    }
}
