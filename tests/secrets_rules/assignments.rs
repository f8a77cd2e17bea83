//! A key that names a secret and its value, in every form the
//! [`assignments`] rule reads: `KEY=value`, `key: value`, JSON,
//! command-line flags and switches, headers, calls, setters, labels, tables, directives; and
//! code after such a key that is no value.

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use super::Cases;

#[test]
fn assignments() {
    let cases = Cases::default();
    cases.masks(
        "export API_TOKEN=Zk4mQ8rT2vX7nB1c",
        "export API_TOKEN=[secret]",
    );
    cases.masks("password: s3cr3t-Pa55!", "password: [secret]");
    cases.masks(
        "{\"client_secret\": \"q8Fz2LmW0pXr5Tn7\"}",
        "{\"client_secret\": \"[secret]\"}",
    );
    cases.masks("secret_key = 'Zk4mQ8rT2vX7nB1c'", "secret_key = '[secret]'");
    cases.masks("$token := \"Zk4mQ8rT2vX7nB1c\"", "$token := \"[secret]\"");
    cases.masks("'password' => 'Tr0ub4dor&3',", "'password' => '[secret]',");
    cases.masks(
        "<password>Tr0ub4dor&3</password>",
        "<password>[secret]</password>",
    );
    cases.masks(
        "<add key=\"SmtpPassword\" value=\"Tr0ub4dor&3\" />",
        "<add key=\"SmtpPassword\" value=\"[secret]\" />",
    );
    cases.masks(
        "the passphrase is Wren-Copper-Lantern-81.",
        "the passphrase is [secret].",
    );
    cases.masks(
        "Server=db;User Id=app;Password=Tr0ub4dor&3;Encrypt=true",
        "Server=db;User Id=app;Password=[secret];Encrypt=true",
    );
    cases.masks(
        "?api_key=Zk4mQ8rT2vX7nB1c&page=2",
        "?api_key=[secret]&page=2",
    );
    cases.masks(
        "aws_secret_access_key = Zk4mQ8rT2vX7nB1c/Wq9+plDartZk4mQ8rT2vX7",
        "aws_secret_access_key = [secret]",
    );
    cases.masks(
        "SECRET_KEY_BASE=0f3a9c5e7b1d2468ace00f3a9c5e7b1d",
        "SECRET_KEY_BASE=[secret]",
    );
    cases.masks(
        "{\\\"password\\\":\\\"Tr0ub4dor&3\\\"}",
        "{\\\"password\\\":\\\"[secret]\\\"}",
    );
    cases.masks("password=\"ñu-2024\"", "password=\"[secret]\"");
    cases.report();
}

#[test]
fn command_lines_and_headers() {
    let cases = Cases::default();
    cases.masks(
        "curl -u deploy:Tr0ub4dor&3 https://ci.example.org",
        "curl -u deploy:[secret] https://ci.example.org",
    );
    cases.masks(
        "redis-cli -a 0f3a9c5e7b1d2468ace0 ping",
        "redis-cli -a [secret] ping",
    );
    cases.masks(
        "mysql -uroot -pTr0ub4dor3x! db",
        "mysql -uroot -p[secret] db",
    );
    cases.masks(
        "tool --api-key Zk4mQ8rT2vX7nB1c --verbose",
        "tool --api-key [secret] --verbose",
    );
    cases.masks(
        "keytool -storepass \"Wq9!plover\" -list",
        "keytool -storepass \"[secret]\" -list",
    );
    cases.masks(
        "openssl rsa -in k.pem -passin pass:Wq9!plover-Dart",
        "openssl rsa -in k.pem -passin pass:[secret]",
    );
    cases.masks(
        "-H \"Authorization: Basic bWlyYTpXcTkhcGxvdmVy\"",
        "-H \"Authorization: Basic [secret]\"",
    );
    cases.masks(
        "opts = { auth: { Authorization: \"Bearer Zk4mQ8rT2vX7nB1c\" } }",
        "opts = { auth: { Authorization: \"Bearer [secret]\" } }",
    );
    cases.keeps("docker run -u 1000:1000 image");
    cases.keeps("git commit -a -m 'fix'");
    cases.keeps("gcc -pthread main.c -o main");
    cases
        .keeps("wget --header \"Authorization: Bearer $ACCESS_TOKEN\" https://files.example.org/a");
    cases.keeps("Authorization: Bearer <your-access-token>");
    cases.report();
}

#[test]
fn password_flags() {
    let cases = Cases::default();
    cases.masks(
        "sshpass -p 'Tide7!Lantern' ssh ops@host",
        "sshpass -p '[secret]' ssh ops@host",
    );
    cases.masks(
        "mysql -h db -p'Tide7!Lantern' app",
        "mysql -h db -p'[secret]' app",
    );
    cases.masks(
        "plink -pw Tide7!Lantern ops@host",
        "plink -pw [secret] ops@host",
    );
    cases.masks(
        "zip -P coral&58reef out.zip f.txt",
        "zip -P [secret] out.zip f.txt",
    );
    cases.masks(
        "mvn deploy -Dpassword=coral&58reef -Dusername=ci",
        "mvn deploy -Dpassword=[secret] -Dusername=ci",
    );
    cases.keeps("ssh -p 2222 ops@host && mkdir -p build/out && git add -p src/lib.rs");
    cases.report();
}

#[test]
fn signed_urls_and_more_keys() {
    let cases = Cases::default();
    cases.masks(
        "https://acct.blob.core.windows.net/c/x.bin?sv=2024-05-04&sr=b&sig=Zk4mQ8rT2vX7nB1c%2Bab%3D&se=2025",
        "https://acct.blob.core.windows.net/c/x.bin?sv=2024-05-04&sr=b&sig=[secret]&se=2025",
    );
    cases.masks(
        "LD_SDK_KEY=sdk-4e1f0b2a-9c8d-4e7f-a6b5-c4d3e2f1a0b9",
        "LD_SDK_KEY=[secret]",
    );
    cases.masks(
        "ENV SMTP_PASSWORD Tide7!Lantern",
        "ENV SMTP_PASSWORD [secret]",
    );
    cases.masks(
        "$env:ADMIN_PASSWORD = \"Tide7!Lantern\"",
        "$env:ADMIN_PASSWORD = \"[secret]\"",
    );
    cases.keeps(
        "cache_key: 4b9e2f1a7c3d5e8f0a1b2c3d4e5f6a7b\nprimary_key: id\nsession_timeout: 30m",
    );
    cases.report();
}

#[test]
fn headers_and_calls() {
    let cases = Cases::default();
    // an `Authorization` scheme of any name; a header or a key given as a call's arguments
    cases.masks(
        "-H 'Authorization: SSWS 00Zk4mQ8rT2vX7nB1cWq9plDart'",
        "-H 'Authorization: SSWS [secret]'",
    );
    cases.masks(
        "req.Header.Set(\"Authorization\", \"Bearer Zk4mQ8rT2vX7nB1c\")",
        "req.Header.Set(\"Authorization\", \"Bearer [secret]\")",
    );
    cases.masks(
        "define( 'DB_PASSWORD', 'Tide7!Lantern' );",
        "define( 'DB_PASSWORD', '[secret]' );",
    );
    cases.masks(
        "os.environ[\"ACME_API_TOKEN\"] = \"Zk4mQ8rT2vX7nB1c\"",
        "os.environ[\"ACME_API_TOKEN\"] = \"[secret]\"",
    );
    cases.masks(
        "ds.setPassword(\"Tide7!Lantern\");",
        "ds.setPassword(\"[secret]\");",
    );
    cases.masks(
        "requests.get(url, auth=(\"svc\", \"Tide7!Lantern\"))",
        "requests.get(url, auth=(\"svc\", \"[secret]\"))",
    );
    cases.masks(
        "$pw = ConvertTo-SecureString \"Tide7!Lantern\" -AsPlainText -Force",
        "$pw = ConvertTo-SecureString \"[secret]\" -AsPlainText -Force",
    );
    cases.keeps("t(\"password\", \"Passwort\")\nos.getenv(\"DB_PASSWORD\", \"\")");
    cases.keeps("user.checkPassword(\"hunter2\")\nvalidator.getToken(\"user-123\")");
    cases.keeps("<input type=\"password\" name=\"password\" id=\"password\" autocomplete=\"current-password\" required>");
    cases.report();
}

#[test]
fn labelled_values_and_tables() {
    let cases = Cases::default();
    cases.masks(
        "env:\n- name: DB_PASSWORD\n  value: \"Tide7!Lantern\"\n- name: LOG\n  value: info",
        "env:\n- name: DB_PASSWORD\n  value: \"[secret]\"\n- name: LOG\n  value: info",
    );
    cases.masks(
        "{\"name\": \"API_TOKEN\", \"value\": \"Zk4mQ8rT2vX7nB1c\"}",
        "{\"name\": \"API_TOKEN\", \"value\": \"[secret]\"}",
    );
    cases.masks(
        "variable \"db_password\" {\n  type = string\n  default = \"Tide7!Lantern\"\n}",
        "variable \"db_password\" {\n  type = string\n  default = \"[secret]\"\n}",
    );
    cases.masks(
        "<entry key=\"mail.smtp.password\">Tide7!Lantern</entry>",
        "<entry key=\"mail.smtp.password\">[secret]</entry>",
    );
    cases.masks(
        "| Host | User | Password |\n|---|---|---|\n| db-01 | app | Tide7!Lantern |",
        "| Host | User | Password |\n|---|---|---|\n| db-01 | app | [secret] |",
    );
    cases.masks(
        "| GH_TOKEN | `Zk4mQ8rT2vX7nB1c` | CI only |",
        "| GH_TOKEN | `[secret]` | CI only |",
    );
    cases.masks(
        "db:\n  password: >-\n    Tide7!Lantern\n  host: db",
        "db:\n  password: >-\n    [secret]\n  host: db",
    );
    cases.keeps("- name: API_TOKEN\n  valueFrom:\n    secretKeyRef:\n      name: api\n      key: token\n- name: LOG_LEVEL\n  value: debug");
    cases.keeps("| Key | Action |\n|---|---|\n| Ctrl+Shift+P | Command palette |");
    cases.keeps(
        "| Setting | Value |\n|---|---|\n| password_min_length | 12 |\n| token_ttl | 3600 |",
    );
    cases.keeps("| Password | Rule |\n|---|---|\n| length | 12 chars min |");
    cases.keeps("\"name\": \"password\", \"type\": \"string\", \"minLength\": 12");
    cases.keeps("password: \"see the team vault\"\npassphrase: \"ask Dana for it\"");
    cases.masks(
        "GPG_PASSPHRASE=\"velvet orbit 36 lantern\"",
        "GPG_PASSPHRASE=\"[secret]\"",
    );
    cases.report();
}

#[test]
fn more_command_lines() {
    let cases = Cases::default();
    cases.masks(
        "curl -su \"admin:Tide7!Lantern\" https://es:9200",
        "curl -su \"admin:[secret]\" https://es:9200",
    );
    cases.masks(
        "echo 'Tide7!Lantern' | docker login ghcr.io -u jdoe --password-stdin",
        "echo '[secret]' | docker login ghcr.io -u jdoe --password-stdin",
    );
    cases.masks(
        "docker login -u ops --password-stdin <<< 'Tide7!Lantern'",
        "docker login -u ops --password-stdin <<< '[secret]'",
    );
    cases.masks(
        "ldapsearch -x -D cn=admin -w Tide7!Lantern -b dc=acme",
        "ldapsearch -x -D cn=admin -w [secret] -b dc=acme",
    );
    cases.masks(
        "cmdkey /generic:jump01 /user:ops /pass:Tide7!Lantern",
        "cmdkey /generic:jump01 /user:ops /pass:[secret]",
    );
    cases.masks(
        "sqlplus system/Tide7!Lantern@//ora01:1521/ORCL",
        "sqlplus system/[secret]@//ora01:1521/ORCL",
    );
    cases.masks(
        "smbclient //nas/backup -U backup%Tide7!Lantern -c ls",
        "smbclient //nas/backup -U backup%[secret] -c ls",
    );
    cases.masks(
        "# redis.conf\nrequirepass Zk4mQ8rT2vX7nB1c\nmaxmemory 2gb",
        "# redis.conf\nrequirepass [secret]\nmaxmemory 2gb",
    );
    cases.masks(
        "set -x PGPASSWORD Tide7!Lantern",
        "set -x PGPASSWORD [secret]",
    );
    cases.masks(
        "Driver={ODBC Driver 18};Server=sql02;Uid=sa;Pwd={Tide7!Lantern};",
        "Driver={ODBC Driver 18};Server=sql02;Uid=sa;Pwd={[secret]};",
    );
    cases.keeps("set -x\nset -x EDITOR vim\nrequirepass yes");
    cases.keeps("npm install lodash/lodash@4.17.21\nuses: actions/checkout@v4\ndocker pull library/alpine@sha256:abc");
    cases.keeps("echo \"building\" | tee build.log\ndocker login -u ci --password-stdin registry.acme.io < token.txt");
    cases.keeps("grep -w needle haystack.txt && wc -w notes.md");
    cases.report();
}

#[test]
fn code_is_not_a_value() {
    let cases = Cases::default();
    // types, references, macros, members, format fields and constants after a secret's key
    cases.keeps("pub semi_token: Token![;],\nlet brace_token = braced!(content in input);");
    cases.keeps("fn parse(open_token: &Token, sig: &Signature<'_>) {}");
    cases.keeps(
        "pub const DEVCONF_STABLE_SECRET: _bindgen_ty_3 = _bindgen_ty_3::DEVCONF_STABLE_SECRET;",
    );
    cases.keeps("pub const SYS_memfd_secret: c_long = __X32_SYSCALL_BIT + 447;");
    cases.keeps("auth: parsedURL.username || parsedURL.password");
    cases.keeps("print(f\"password={password!r}\")\nmsg = f\"token={token:>10}\"");
    cases.keeps("super::SQLITE_AUTH => ErrorCode::AuthorizationForStatementDenied,");
    cases.keeps("[ 'crc-16-buypass', 'Crc16Buypass', 0x18005 ]");
    cases.keeps("'VBScriptLexer': ('pygments.lexers.basic', 'VBScriptLexer', ('vbscript',)),");
    cases.keeps("headers[\"authorization\"] = 'WSSE profile=\"UsernameToken\"'");
    cases.masks(
        "let password: &str = \"Tide7!Lantern\";",
        "let password: &str = \"[secret]\";",
    );
    // a guess from a bare `key` (here a wrong one) is not repeated elsewhere in the text
    cases.report();
}

#[test]
fn command_syntax() {
    let cases = Cases::default();
    cases.masks(
        "htpasswd -bc /srv/.htpasswd ops 'Dune44%kelp'",
        "htpasswd -bc /srv/.htpasswd ops '[secret]'",
    );
    cases.masks(
        "sudo rabbitmqctl add_user metrics Vole81!grain",
        "sudo rabbitmqctl add_user metrics [secret]",
    );
    cases.masks(
        "psql -U app -p Marsh.Gully_2291 orders",
        "psql -U app -p [secret] orders",
    );
    cases.masks(
        "mysql -u ro -p'Basalt_7731x' shop",
        "mysql -u ro -p'[secret]' shop",
    );
    cases.masks(
        "openssl enc -d -aes-256-cbc -K 7c1e9a44b02f6d3e8a5c71b0f4d29e6a -in a.enc",
        "openssl enc -d -aes-256-cbc -K [secret] -in a.enc",
    );
    cases.masks(
        "client.bearer_auth(\"Rk4pX9mQ2wL7vT3zN8cJ5hB1\")",
        "client.bearer_auth(\"[secret]\")",
    );
    cases.keeps("htpasswd -c /srv/.htpasswd ops");
    cases.keeps("net user deploy * /add");
    cases.keeps("sort -k 2 -n data.txt\ncurl -k https://localhost:8443/");
    cases.keeps("openssl rsa -in k.pem -passin env:KEY_PASS_2");
    cases.keeps("DB_PASSWORD: ${DB_PASSWORD:?set it}");
    cases.report();
}

#[test]
fn a_flag_takes_a_password_of_words_and_a_number() {
    let cases = Cases::default();
    cases.masks(
        "zip -P Heron2031 notes.zip notes/",
        "zip -P [secret] notes.zip notes/",
    );
    cases.masks(
        "ldapwhoami -x -D cn=ops,dc=acme -w Comet-Lark-29",
        "ldapwhoami -x -D cn=ops,dc=acme -w [secret]",
    );
    // a port, a folder, a plugin: no capital word with a number
    cases.keeps("docker run -p 8080:80 nginx");
    cases.keeps("mkdir -p build/Release2");
    cases.keeps("pytest -p no:cacheprovider tests/");
    cases.report();
}

#[test]
fn a_key_ending_in_auth_names_credentials() {
    let cases = Cases::default();
    cases.masks("masterauth Quill-Basin-88", "masterauth [secret]");
    cases.keeps("masterauth ${REDIS_PASSWORD}");
    cases.keeps("oauth = github");
    cases.report();
}

/// Forms a fifth development set (`dev5.toml`) found unread: each was a leak before.
#[test]
fn forms_of_the_fifth_set() {
    let cases = Cases::default();
    // Make's conditional and appending assignments
    cases.masks("DB_PASS ?= Kv7.mQ2x", "DB_PASS ?= [secret]");
    cases.masks("SMTP_PASSWORD += Tr0ub4dor&3", "SMTP_PASSWORD += [secret]");
    // a passphrase of dotted words, bare or quoted
    cases.masks(
        "vault.password=copper.meadow.lantern",
        "vault.password=[secret]",
    );
    cases.masks(
        "RESTIC_PASSPHRASE=\"orbit.tulip.saddle.crane\"",
        "RESTIC_PASSPHRASE=\"[secret]\"",
    );
    cases.masks(
        "the recovery passphrase is orbit.tulip.saddle",
        "the recovery passphrase is [secret]",
    );
    // a `&` that ends the line belongs to the value
    cases.masks(
        "repoPassword=Lk3vQz8&\nrepoUser=ci",
        "repoPassword=[secret]\nrepoUser=ci",
    );
    // an Oracle connect string says a password came before `@//`
    cases.masks(
        "sqlplus app_owner/maple.Harbor@//db07:1521/SALES",
        "sqlplus app_owner/[secret]@//db07:1521/SALES",
    );
    // a glued `-p` password of words and a number
    cases.masks("7z x -pLantern.Meadow42 drop.7z", "7z x -p[secret] drop.7z");
    // `DOMAIN\user%password`
    cases.masks(
        "rpcclient -U 'OFFICE\\svc_scan%Tide.9walrus' fs02",
        "rpcclient -U 'OFFICE\\svc_scan%[secret]' fs02",
    );
    // an `@` and a `.` with no domain after the `@`: a password, not an address
    cases.masks(
        "the kiosk admin password is now 4kT@w%._Zq",
        "the kiosk admin password is now [secret]",
    );
    cases.masks(
        "set the switch admin password to `heron.Cobalt52@`",
        "set the switch admin password to `[secret]`",
    );
    // a generated key with symbols that spell code by chance
    cases.masks(
        "SECRET_KEY = 'q9!x(ae=2%kw@7zr&m4u*p8#h1c-t6v^y3n+b0j(f5l)g=s'",
        "SECRET_KEY = '[secret]'",
    );
    // a passphrase announced after it
    cases.masks(
        "use harbor.walnut.pepper as the passphrase for the archive",
        "use [secret] as the passphrase for the archive",
    );
    cases.report();
}

#[test]
fn a_resource_named_after_its_secret_is_kept() {
    let cases = Cases::default();
    cases.keeps("kubectl -n billing describe secret ledger-db-password-4c1d9");
    cases.keeps("the secret payments-api-token-88af2 was rotated");
    cases.keeps("password: user@example.com");
    cases.keeps("backup host: backups.internal.corp");
    cases.report();
}

#[test]
fn pragma_keys_directive_values_and_setters_with_flags() {
    let cases = Cases::default();
    cases.masks(
        "PRAGMA key = 'Marble_otter_415';",
        "PRAGMA key = '[secret]';",
    );
    cases.masks(
        "LdapBindPassword walrusquill=57",
        "LdapBindPassword [secret]",
    );
    cases.masks(
        "aws configure set aws_secret_access_key /Qm4kT9vLx2ZpR7wNc3bHd8fGs1jKa6eYu5oPi0Ar --profile ci",
        "aws configure set aws_secret_access_key [secret] --profile ci",
    );
    cases.masks("SMTP_PASSWORD=wqzkrtvbnm", "SMTP_PASSWORD=[secret]");
    // a word, or a key=value after a word in prose, is still no value
    cases.keeps("POSTGRES_PASSWORD=postgres");
    cases.keeps("the password option=strict is set in the form");
    cases.keeps("PRAGMA journal_mode = WAL;");
    cases.report();
}

#[test]
fn a_bare_key_with_an_api_key_after_it_and_terraform_host_tokens() {
    let cases = Cases::default();
    cases.masks(
        "weather.key=5e8d2c7f1a9b4e3d6c0f8a2b7e5d1c94",
        "weather.key=[secret]",
    );
    cases.masks(
        "export TF_TOKEN_tfe_example_net=Rk4mT9vLx2ZpQ7wN.atlasv1.Cb3HdfGs1jKa6eYu5oPi0Ar8",
        "export TF_TOKEN_tfe_example_net=[secret]",
    );
    cases.masks(
        "echo Rk4mT9vLx2ZpQ7wNc3bHd8fGs1jKa6eY | gh auth login --with-token",
        "echo [secret] | gh auth login --with-token",
    );
    // a cache key stays; 40 or 64 hex digits under a name that says key are a key, under
    // `commit` or `sha256` a commit id or a digest
    cases.keeps(
        "key: node-modules-9f1c3e5a7b2d4f6e8a0c1b3d5f7e9a2c4b6d8f0e1a3c5e7b9d2f4a6c8e0b1d3f",
    );
    cases.masks(
        "key: 3f2a9c5e7b1d2468ace0f3a9c5e7b1d2468ace0f",
        "key: [secret]",
    );
    cases.keeps("commit: 3f2a9c5e7b1d2468ace0f3a9c5e7b1d2468ace0f");
    cases.keeps("sha256: 9f1c3e5a7b2d4f6e8a0c1b3d5f7e9a2c4b6d8f0e1a3c5e7b9d2f4a6c8e0b1d3f");
    cases.keeps("TF_TOKEN_ is followed by the host name with dots as underscores");
    cases.report();
}

#[test]
fn defaults_of_parameter_expansions_and_app_ids_that_are_keys() {
    let cases = Cases::default();
    cases.masks(
        "DB_PASSWORD: ${DB_PASSWORD:-Tr0ub4dor&3x}",
        "DB_PASSWORD: ${DB_PASSWORD:-[secret]}",
    );
    cases.masks(
        "pg_dump \"postgres://etl:${ETL_PASS:-Wv8nQz3tKp}@db07/etl\"",
        "pg_dump \"postgres://etl:${ETL_PASS:-[secret]}@db07/etl\"",
    );
    cases.masks(
        "weather.api.key=${WEATHER_KEY:5e8d2c7f1a9b4e3d6c0f8a2b7e5d1c94}",
        "weather.api.key=${WEATHER_KEY:[secret]}",
    );
    cases.masks(
        "curl \"https://api.example.net/forecast?city=Oslo&appid=5e8d2c7f1a9b4e3d6c0f8a2b7e5d1c94\"",
        "curl \"https://api.example.net/forecast?city=Oslo&appid=[secret]\"",
    );
    cases.keeps("password: ${DB_PASSWORD:?set DB_PASSWORD first}");
    cases.keeps("token: ${GITHUB_TOKEN}");
    cases.keeps("appid: com.example.weather");
    cases.report();
}

#[test]
fn a_short_weak_password_after_a_password_key() {
    let cases = Cases::default();
    cases.masks("DB_PASSWORD=walrus7", "DB_PASSWORD=[secret]");
    cases.masks("smtp_pass: 'm0ngo5'", "smtp_pass: '[secret]'");
    // not a short name or version under another key, nor a placeholder under a password key
    cases.keeps("hash_algorithm=sha256");
    cases.keeps("DB_PASSWORD=changeme1");
    cases.keeps("api_version=v2beta1");
    cases.report();
}

#[test]
fn keys_ending_in_pw_and_haproxy_stats_auth() {
    let cases = Cases::default();
    cases.masks("rootpw Heron-maple-58", "rootpw [secret]");
    cases.masks("bindpw = 'Kq7!vM2xQ'", "bindpw = '[secret]'");
    cases.masks(
        "    stats auth admin:Zq8vLm3Rt2",
        "    stats auth admin:[secret]",
    );
    cases.keeps("    stats uri /haproxy?stats");
    cases.keeps("the stats auth page needs a login");
    cases.report();
}
