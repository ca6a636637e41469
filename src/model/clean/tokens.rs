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
        // Version control. These prefixes, and those of Slack, AWS, Google, Stripe's live keys,
        // npm and a JSON Web Token of two JSON parts, are found after a letter or digit too
        // (`[USghp_…]`, the `n` of a `\nghp_…` escape): no word holds them followed by their
        // token's body.
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
        Rule::provider("a GitLab runner registration token", r"GR1348941[A-Za-z0-9_\-]{20,}", &["GR1348941"]),
        Rule::provider("a Bitbucket app password", r"ATBB[A-Za-z0-9_=.\-]{24,}", &["ATBB"]),
        Rule::provider("an Atlassian token", r"AT(?:ATT|CTT)3[A-Za-z0-9_=\-]{40,}", &["ATATT3", "ATCTT3"]),
        // Chat.
        Rule::prefixed(
            Token,
            "a Slack token",
            r"xox(?:[abposr]|e(?:\.xox[bp])?)-[A-Za-z0-9\-]{10,}",
            &["xox"],
            (12, alnum_dot_or_dash),
        ),
        Rule::provider("a Slack app token", r"xapp-[0-9]-[A-Za-z0-9\-]{10,}", &["xapp-"]),
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
        Rule::provider("a Google OAuth client secret", r"GOCSPX-[A-Za-z0-9_\-]{20,}", &["GOCSPX-"]),
        Rule::provider(
            "a Google OAuth token",
            r"ya29\.[0-9A-Za-z_\-]{20,}|1//0[0-9A-Za-z_\-]{30,}",
            &["ya29.", "1//0"],
        ),
        Rule::new(
            Token,
            "an Azure client secret",
            r"[A-Za-z0-9_~.\-]{3}[0-9]Q~[A-Za-z0-9_~.\-]{31,34}",
            &["Q~"],
        ),
        Rule::provider("a DigitalOcean token", "do[opr]_v1_[a-f0-9]{64}", &["dop_v1_", "doo_v1_", "dor_v1_"]),
        Rule::provider("a Heroku token", r"HRKU-[A-Za-z0-9_\-]{20,}", &["HRKU-"]),
        Rule::provider("an Alibaba Cloud access key id", "LTAI[A-Za-z0-9]{12,20}", &["LTAI"]).ended(),
        Rule::provider("a HashiCorp Vault token", r"hv[sbr]\.[A-Za-z0-9_\-]{24,}", &["hvs.", "hvb.", "hvr."]),
        Rule::new(
            Token,
            "a Terraform Cloud token",
            r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_\-=]{60,}",
            &[".atlasv1."],
        ),
        Rule::provider("a Doppler token", r"dp\.(?:pt|st|ct|sa|scim|audit)\.[A-Za-z0-9]{40,}", &["dp."]),
        Rule::provider("a Pulumi token", "pul-[a-f0-9]{40}", &["pul-"]),
        Rule::provider("a Databricks token", "dapi[a-f0-9]{32}", &["dapi"]),
        Rule::provider(
            "a Grafana token",
            "glc_[A-Za-z0-9+/]{32,}|glsa_[A-Za-z0-9]{32}_[a-fA-F0-9]{8}",
            &["glc_", "glsa_"],
        ),
        Rule::provider(
            "a New Relic key",
            r"NR(?:AK|II|JS)-[A-Za-z0-9_\-]{20,}",
            &["NRAK-", "NRII-", "NRJS-"],
        ),
        Rule::provider("a Sentry token", "sntry[su]_[A-Za-z0-9+/=_]{40,}", &["sntrys_", "sntryu_"]),
        Rule::provider("a Cloudflare origin CA key", r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}", &["v1.0-"]),
        Rule::provider("a Fly.io token", r"fo1_[A-Za-z0-9_\-]{40,}", &["fo1_"]),
        Rule::provider("a PlanetScale token", r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_\-.]{30,}", &["pscale_"]),
        Rule::provider(
            "a Supabase key",
            r"sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_\-]{20,}",
            &["sbp_", "sb_secret_"],
        ),
    ]
}

/// Services and payment.
fn services_and_payment() -> Vec<Rule> {
    use LeakKind::*;
    vec![
        // Services.
        Rule::provider("a Linear key", "lin_api_[A-Za-z0-9]{40}", &["lin_api_"]),
        Rule::provider("a Notion token", "secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{40,}", &["secret_", "ntn_"]),
        Rule::provider("a Figma token", r"figd_[A-Za-z0-9_\-]{40,}", &["figd_"]),
        Rule::provider("an Airtable token", r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}", &["pat"]),
        Rule::provider("a Postman key", "PMAK-[a-f0-9]{24}-[a-f0-9]{34}", &["PMAK-"]),
        Rule::provider("a Contentful token", r"CFPAT-[A-Za-z0-9_\-]{40,}", &["CFPAT-"]),
        Rule::provider(
            "a Shopify token",
            "shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}",
            &["shpat_", "shpca_", "shppa_", "shpss_"],
        ),
        Rule::provider("a 1Password service account token", r"ops_eyJ[A-Za-z0-9+/=_\-]{40,}", &["ops_eyJ"]),
        Rule::provider(
            "a Mapbox secret token",
            r"sk\.eyJ[A-Za-z0-9_\-]{20,}\.[A-Za-z0-9_\-]{20,}",
            &["sk.eyJ"],
        ),
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
        Rule::provider(
            "a Stripe key",
            "(?:sk|rk)_test_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,}",
            &["sk_test_", "rk_test_", "whsec_"],
        ),
        Rule::provider("a Square token", r"sq0(?:atp|csp)-[A-Za-z0-9_\-]{22,}", &["sq0atp-", "sq0csp-"]),
        Rule::provider("a Meta or Square access token", r"EAA[A-Za-z0-9_\-]{60,}", &["EAA"]),
        Rule::provider(
            "a Braintree token",
            r"access_token\$production\$[0-9a-z]{16}\$[0-9a-f]{32}",
            &["access_token$"],
        ),
        Rule::provider("a Razorpay key", "rzp_(?:live|test)_[A-Za-z0-9]{14,}", &["rzp_live_", "rzp_test_"]),
        Rule::token(Token, "a Twilio key", "SK[0-9a-fA-F]{32}", &["SK"]).ended(),
    ]
}

/// Mail, package registries, CI and AI services.
fn mail_registries_ci_and_ai() -> Vec<Rule> {
    use LeakKind::*;
    vec![
        // Mail.
        Rule::token(Token, "a SendGrid key", r"SG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{16,64}", &["SG."]),
        Rule::token(Token, "a Mailgun key", "key-[0-9a-f]{32}", &["key-"]).ended(),
        Rule::new(Token, "a Mailchimp key", "(?P<leak>[0-9a-f]{32}-us[0-9]{1,2})", &["-us"]).ended(),
        Rule::provider(
            "a Brevo key",
            "x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}",
            &["xkeysib-", "xsmtpsib-"],
        ),
        Rule::token(Token, "a Resend key", "re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}", &["re_"]),
        // Package registries.
        Rule::prefixed(Token, "an npm token", "npm_[A-Za-z0-9]{36}", &["npm_"], (36, alnum)).ended(),
        Rule::provider("a PyPI token", r"pypi-AgE[A-Za-z0-9_\-]{20,}", &["pypi-AgE"]),
        Rule::token(Token, "a crates.io token", "cio[A-Za-z0-9]{32}", &["cio"]).ended(),
        Rule::token(Token, "a NuGet key", "oy2[a-z0-9]{43}", &["oy2"]).ended(),
        Rule::provider("a RubyGems key", "rubygems_[a-f0-9]{48}", &["rubygems_"]),
        Rule::provider(
            "a Docker Hub token",
            r"dckr_(?:pat|oat)_[A-Za-z0-9_\-]{20,}",
            &["dckr_pat_", "dckr_oat_"],
        ),
        Rule::provider(
            "a JFrog token",
            "AKCp[A-Za-z0-9]{60,}|cmVmdGtuOjAxOj[A-Za-z0-9]{30,}",
            &["AKCp", "cmVmdGtuOjAxOj"],
        ),
        Rule::provider("a Hugging Face token", "hf_[A-Za-z]{30,}", &["hf_"]).ended(),
        Rule::provider("a Clojars token", "CLOJARS_[a-z0-9]{60}", &["CLOJARS_"]),
        // CI.
        Rule::provider(
            "a CircleCI token",
            "CCIP(?:AT|RJ)_[A-Za-z0-9]{20,}_[a-f0-9]{40}",
            &["CCIPAT_", "CCIPRJ_"],
        ),
        Rule::provider("a Buildkite token", "bkua_[a-f0-9]{40}", &["bkua_"]),
        Rule::provider("a SonarQube token", "sq[pua]_[a-f0-9]{40}", &["sqp_", "squ_", "sqa_"]),
        // AI services.
        Rule::provider(
            "an OpenAI or Anthropic key",
            r"sk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}",
            &["sk-"],
        ),
        Rule::provider("a Groq key", "gsk_[A-Za-z0-9]{40,}", &["gsk_"]),
        Rule::provider("a Replicate token", "r8_[A-Za-z0-9]{30,}", &["r8_"]),
        Rule::provider("a Perplexity key", "pplx-[A-Za-z0-9]{40,}", &["pplx-"]),
        Rule::provider("an xAI key", "xai-[A-Za-z0-9]{60,}", &["xai-"]),
    ]
}

/// Tokens of no one provider.
fn of_no_provider() -> Vec<Rule> {
    use LeakKind::*;
    vec![
        // Tokens of no one provider.
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
