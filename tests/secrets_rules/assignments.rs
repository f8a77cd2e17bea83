//! A key that names a secret and its value, in every form the
//! [`assignments`] rule reads: `KEY=value`, `key: value`, JSON,
//! command-line flags and switches, headers, calls, setters, labels, tables, directives; and
//! code after such a key that is no value.

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use super::{keeps, masks};

#[test]
fn assignments() {
    masks(
        "export API_TOKEN=Zk4mQ8rT2vX7nB1c",
        "export API_TOKEN=[secret]",
    );
    masks("password: s3cr3t-Pa55!", "password: [secret]");
    masks(
        "{\"client_secret\": \"q8Fz2LmW0pXr5Tn7\"}",
        "{\"client_secret\": \"[secret]\"}",
    );
    masks("secret_key = 'Zk4mQ8rT2vX7nB1c'", "secret_key = '[secret]'");
    masks("$token := \"Zk4mQ8rT2vX7nB1c\"", "$token := \"[secret]\"");
    masks("'password' => 'Tr0ub4dor&3',", "'password' => '[secret]',");
    masks(
        "<password>Tr0ub4dor&3</password>",
        "<password>[secret]</password>",
    );
    masks(
        "<add key=\"SmtpPassword\" value=\"Tr0ub4dor&3\" />",
        "<add key=\"SmtpPassword\" value=\"[secret]\" />",
    );
    masks(
        "the passphrase is Wren-Copper-Lantern-81.",
        "the passphrase is [secret].",
    );
    masks(
        "Server=db;User Id=app;Password=Tr0ub4dor&3;Encrypt=true",
        "Server=db;User Id=app;Password=[secret];Encrypt=true",
    );
    masks(
        "?api_key=Zk4mQ8rT2vX7nB1c&page=2",
        "?api_key=[secret]&page=2",
    );
    masks(
        "aws_secret_access_key = Zk4mQ8rT2vX7nB1c/Wq9+plDartZk4mQ8rT2vX7",
        "aws_secret_access_key = [secret]",
    );
    masks(
        "SECRET_KEY_BASE=0f3a9c5e7b1d2468ace00f3a9c5e7b1d",
        "SECRET_KEY_BASE=[secret]",
    );
    masks(
        "{\\\"password\\\":\\\"Tr0ub4dor&3\\\"}",
        "{\\\"password\\\":\\\"[secret]\\\"}",
    );
    masks("password=\"ñu-2024\"", "password=\"[secret]\"");
}

#[test]
fn command_lines_and_headers() {
    masks(
        "curl -u deploy:Tr0ub4dor&3 https://ci.example.org",
        "curl -u deploy:[secret] https://ci.example.org",
    );
    masks(
        "redis-cli -a 0f3a9c5e7b1d2468ace0 ping",
        "redis-cli -a [secret] ping",
    );
    masks(
        "mysql -uroot -pTr0ub4dor3x! db",
        "mysql -uroot -p[secret] db",
    );
    masks(
        "tool --api-key Zk4mQ8rT2vX7nB1c --verbose",
        "tool --api-key [secret] --verbose",
    );
    masks(
        "keytool -storepass \"Wq9!plover\" -list",
        "keytool -storepass \"[secret]\" -list",
    );
    masks(
        "openssl rsa -in k.pem -passin pass:Wq9!plover-Dart",
        "openssl rsa -in k.pem -passin pass:[secret]",
    );
    masks(
        "-H \"Authorization: Basic bWlyYTpXcTkhcGxvdmVy\"",
        "-H \"Authorization: Basic [secret]\"",
    );
    masks(
        "opts = { auth: { Authorization: \"Bearer Zk4mQ8rT2vX7nB1c\" } }",
        "opts = { auth: { Authorization: \"Bearer [secret]\" } }",
    );
    keeps("docker run -u 1000:1000 image");
    keeps("git commit -a -m 'fix'");
    keeps("gcc -pthread main.c -o main");
    keeps("wget --header \"Authorization: Bearer $ACCESS_TOKEN\" https://files.example.org/a");
    keeps("Authorization: Bearer <your-access-token>");
}

#[test]
fn password_flags() {
    masks(
        "sshpass -p 'Tide7!Lantern' ssh ops@host",
        "sshpass -p '[secret]' ssh ops@host",
    );
    masks(
        "mysql -h db -p'Tide7!Lantern' app",
        "mysql -h db -p'[secret]' app",
    );
    masks(
        "plink -pw Tide7!Lantern ops@host",
        "plink -pw [secret] ops@host",
    );
    masks(
        "zip -P coral&58reef out.zip f.txt",
        "zip -P [secret] out.zip f.txt",
    );
    masks(
        "mvn deploy -Dpassword=coral&58reef -Dusername=ci",
        "mvn deploy -Dpassword=[secret] -Dusername=ci",
    );
    keeps("ssh -p 2222 ops@host && mkdir -p build/out && git add -p src/lib.rs");
}

#[test]
fn signed_urls_and_more_keys() {
    masks(
        "https://acct.blob.core.windows.net/c/x.bin?sv=2024-05-04&sr=b&sig=Zk4mQ8rT2vX7nB1c%2Bab%3D&se=2025",
        "https://acct.blob.core.windows.net/c/x.bin?sv=2024-05-04&sr=b&sig=[secret]&se=2025",
    );
    masks(
        "LD_SDK_KEY=sdk-4e1f0b2a-9c8d-4e7f-a6b5-c4d3e2f1a0b9",
        "LD_SDK_KEY=[secret]",
    );
    masks(
        "ENV SMTP_PASSWORD Tide7!Lantern",
        "ENV SMTP_PASSWORD [secret]",
    );
    masks(
        "$env:ADMIN_PASSWORD = \"Tide7!Lantern\"",
        "$env:ADMIN_PASSWORD = \"[secret]\"",
    );
    keeps("cache_key: 4b9e2f1a7c3d5e8f0a1b2c3d4e5f6a7b\nprimary_key: id\nsession_timeout: 30m");
}

#[test]
fn headers_and_calls() {
    // an `Authorization` scheme of any name; a header or a key given as a call's arguments
    masks(
        "-H 'Authorization: SSWS 00Zk4mQ8rT2vX7nB1cWq9plDart'",
        "-H 'Authorization: SSWS [secret]'",
    );
    masks(
        "req.Header.Set(\"Authorization\", \"Bearer Zk4mQ8rT2vX7nB1c\")",
        "req.Header.Set(\"Authorization\", \"Bearer [secret]\")",
    );
    masks(
        "define( 'DB_PASSWORD', 'Tide7!Lantern' );",
        "define( 'DB_PASSWORD', '[secret]' );",
    );
    masks(
        "os.environ[\"ACME_API_TOKEN\"] = \"Zk4mQ8rT2vX7nB1c\"",
        "os.environ[\"ACME_API_TOKEN\"] = \"[secret]\"",
    );
    masks(
        "ds.setPassword(\"Tide7!Lantern\");",
        "ds.setPassword(\"[secret]\");",
    );
    masks(
        "requests.get(url, auth=(\"svc\", \"Tide7!Lantern\"))",
        "requests.get(url, auth=(\"svc\", \"[secret]\"))",
    );
    masks(
        "$pw = ConvertTo-SecureString \"Tide7!Lantern\" -AsPlainText -Force",
        "$pw = ConvertTo-SecureString \"[secret]\" -AsPlainText -Force",
    );
    keeps("t(\"password\", \"Passwort\")\nos.getenv(\"DB_PASSWORD\", \"\")");
    keeps("user.checkPassword(\"hunter2\")\nvalidator.getToken(\"user-123\")");
    keeps("<input type=\"password\" name=\"password\" id=\"password\" autocomplete=\"current-password\" required>");
}

#[test]
fn labelled_values_and_tables() {
    masks(
        "env:\n- name: DB_PASSWORD\n  value: \"Tide7!Lantern\"\n- name: LOG\n  value: info",
        "env:\n- name: DB_PASSWORD\n  value: \"[secret]\"\n- name: LOG\n  value: info",
    );
    masks(
        "{\"name\": \"API_TOKEN\", \"value\": \"Zk4mQ8rT2vX7nB1c\"}",
        "{\"name\": \"API_TOKEN\", \"value\": \"[secret]\"}",
    );
    masks(
        "variable \"db_password\" {\n  type = string\n  default = \"Tide7!Lantern\"\n}",
        "variable \"db_password\" {\n  type = string\n  default = \"[secret]\"\n}",
    );
    masks(
        "<entry key=\"mail.smtp.password\">Tide7!Lantern</entry>",
        "<entry key=\"mail.smtp.password\">[secret]</entry>",
    );
    masks(
        "| Host | User | Password |\n|---|---|---|\n| db-01 | app | Tide7!Lantern |",
        "| Host | User | Password |\n|---|---|---|\n| db-01 | app | [secret] |",
    );
    masks(
        "| GH_TOKEN | `Zk4mQ8rT2vX7nB1c` | CI only |",
        "| GH_TOKEN | `[secret]` | CI only |",
    );
    masks(
        "db:\n  password: >-\n    Tide7!Lantern\n  host: db",
        "db:\n  password: >-\n    [secret]\n  host: db",
    );
    keeps("- name: API_TOKEN\n  valueFrom:\n    secretKeyRef:\n      name: api\n      key: token\n- name: LOG_LEVEL\n  value: debug");
    keeps("| Key | Action |\n|---|---|\n| Ctrl+Shift+P | Command palette |");
    keeps("| Setting | Value |\n|---|---|\n| password_min_length | 12 |\n| token_ttl | 3600 |");
    keeps("| Password | Rule |\n|---|---|\n| length | 12 chars min |");
    keeps("\"name\": \"password\", \"type\": \"string\", \"minLength\": 12");
    keeps("password: \"see the team vault\"\npassphrase: \"ask Dana for it\"");
    masks(
        "GPG_PASSPHRASE=\"velvet orbit 36 lantern\"",
        "GPG_PASSPHRASE=\"[secret]\"",
    );
}

#[test]
fn more_command_lines() {
    masks(
        "curl -su \"admin:Tide7!Lantern\" https://es:9200",
        "curl -su \"admin:[secret]\" https://es:9200",
    );
    masks(
        "echo 'Tide7!Lantern' | docker login ghcr.io -u jdoe --password-stdin",
        "echo '[secret]' | docker login ghcr.io -u jdoe --password-stdin",
    );
    masks(
        "docker login -u ops --password-stdin <<< 'Tide7!Lantern'",
        "docker login -u ops --password-stdin <<< '[secret]'",
    );
    masks(
        "ldapsearch -x -D cn=admin -w Tide7!Lantern -b dc=acme",
        "ldapsearch -x -D cn=admin -w [secret] -b dc=acme",
    );
    masks(
        "cmdkey /generic:jump01 /user:ops /pass:Tide7!Lantern",
        "cmdkey /generic:jump01 /user:ops /pass:[secret]",
    );
    masks(
        "sqlplus system/Tide7!Lantern@//ora01:1521/ORCL",
        "sqlplus system/[secret]@//ora01:1521/ORCL",
    );
    masks(
        "smbclient //nas/backup -U backup%Tide7!Lantern -c ls",
        "smbclient //nas/backup -U backup%[secret] -c ls",
    );
    masks(
        "# redis.conf\nrequirepass Zk4mQ8rT2vX7nB1c\nmaxmemory 2gb",
        "# redis.conf\nrequirepass [secret]\nmaxmemory 2gb",
    );
    masks(
        "set -x PGPASSWORD Tide7!Lantern",
        "set -x PGPASSWORD [secret]",
    );
    masks(
        "Driver={ODBC Driver 18};Server=sql02;Uid=sa;Pwd={Tide7!Lantern};",
        "Driver={ODBC Driver 18};Server=sql02;Uid=sa;Pwd={[secret]};",
    );
    keeps("set -x\nset -x EDITOR vim\nrequirepass yes");
    keeps("npm install lodash/lodash@4.17.21\nuses: actions/checkout@v4\ndocker pull library/alpine@sha256:abc");
    keeps("echo \"building\" | tee build.log\ndocker login -u ci --password-stdin registry.acme.io < token.txt");
    keeps("grep -w needle haystack.txt && wc -w notes.md");
}

#[test]
fn code_is_not_a_value() {
    // types, references, macros, members, format fields and constants after a secret's key
    keeps("pub semi_token: Token![;],\nlet brace_token = braced!(content in input);");
    keeps("fn parse(open_token: &Token, sig: &Signature<'_>) {}");
    keeps("pub const DEVCONF_STABLE_SECRET: _bindgen_ty_3 = _bindgen_ty_3::DEVCONF_STABLE_SECRET;");
    keeps("pub const SYS_memfd_secret: c_long = __X32_SYSCALL_BIT + 447;");
    keeps("auth: parsedURL.username || parsedURL.password");
    keeps("print(f\"password={password!r}\")\nmsg = f\"token={token:>10}\"");
    keeps("super::SQLITE_AUTH => ErrorCode::AuthorizationForStatementDenied,");
    keeps("[ 'crc-16-buypass', 'Crc16Buypass', 0x18005 ]");
    keeps("'VBScriptLexer': ('pygments.lexers.basic', 'VBScriptLexer', ('vbscript',)),");
    keeps("headers[\"authorization\"] = 'WSSE profile=\"UsernameToken\"'");
    masks(
        "let password: &str = \"Tide7!Lantern\";",
        "let password: &str = \"[secret]\";",
    );
    // a guess from a bare `key` (here a wrong one) is not repeated elsewhere in the text
}

#[test]
fn command_syntax() {
    masks(
        "htpasswd -bc /srv/.htpasswd ops 'Dune44%kelp'",
        "htpasswd -bc /srv/.htpasswd ops '[secret]'",
    );
    masks(
        "sudo rabbitmqctl add_user metrics Vole81!grain",
        "sudo rabbitmqctl add_user metrics [secret]",
    );
    masks(
        "psql -U app -p Marsh.Gully_2291 orders",
        "psql -U app -p [secret] orders",
    );
    masks(
        "mysql -u ro -p'Basalt_7731x' shop",
        "mysql -u ro -p'[secret]' shop",
    );
    masks(
        "openssl enc -d -aes-256-cbc -K 7c1e9a44b02f6d3e8a5c71b0f4d29e6a -in a.enc",
        "openssl enc -d -aes-256-cbc -K [secret] -in a.enc",
    );
    masks(
        "client.bearer_auth(\"Rk4pX9mQ2wL7vT3zN8cJ5hB1\")",
        "client.bearer_auth(\"[secret]\")",
    );
    keeps("htpasswd -c /srv/.htpasswd ops");
    keeps("net user deploy * /add");
    keeps("sort -k 2 -n data.txt\ncurl -k https://localhost:8443/");
    keeps("openssl rsa -in k.pem -passin env:KEY_PASS_2");
    keeps("DB_PASSWORD: ${DB_PASSWORD:?set it}");
}

#[test]
fn a_flag_takes_a_password_of_words_and_a_number() {
    masks(
        "zip -P Heron2031 notes.zip notes/",
        "zip -P [secret] notes.zip notes/",
    );
    masks(
        "ldapwhoami -x -D cn=ops,dc=acme -w Comet-Lark-29",
        "ldapwhoami -x -D cn=ops,dc=acme -w [secret]",
    );
    // a port, a folder, a plugin: no capital word with a number
    keeps("docker run -p 8080:80 nginx");
    keeps("mkdir -p build/Release2");
    keeps("pytest -p no:cacheprovider tests/");
}

#[test]
fn a_key_ending_in_auth_names_credentials() {
    masks("masterauth Quill-Basin-88", "masterauth [secret]");
    keeps("masterauth ${REDIS_PASSWORD}");
    keeps("oauth = github");
}

/// Forms a fifth development set (`dev5.toml`) found unread: each was a leak before.
#[test]
fn forms_of_the_fifth_set() {
    // Make's conditional and appending assignments
    masks("DB_PASS ?= Kv7.mQ2x", "DB_PASS ?= [secret]");
    masks("SMTP_PASSWORD += Tr0ub4dor&3", "SMTP_PASSWORD += [secret]");
    // a passphrase of dotted words, bare or quoted
    masks(
        "vault.password=copper.meadow.lantern",
        "vault.password=[secret]",
    );
    masks(
        "RESTIC_PASSPHRASE=\"orbit.tulip.saddle.crane\"",
        "RESTIC_PASSPHRASE=\"[secret]\"",
    );
    masks(
        "the recovery passphrase is orbit.tulip.saddle",
        "the recovery passphrase is [secret]",
    );
    // a `&` that ends the line belongs to the value
    masks(
        "repoPassword=Lk3vQz8&\nrepoUser=ci",
        "repoPassword=[secret]\nrepoUser=ci",
    );
    // an Oracle connect string says a password came before `@//`
    masks(
        "sqlplus app_owner/maple.Harbor@//db07:1521/SALES",
        "sqlplus app_owner/[secret]@//db07:1521/SALES",
    );
    // a glued `-p` password of words and a number
    masks("7z x -pLantern.Meadow42 drop.7z", "7z x -p[secret] drop.7z");
    // `DOMAIN\user%password`
    masks(
        "rpcclient -U 'OFFICE\\svc_scan%Tide.9walrus' fs02",
        "rpcclient -U 'OFFICE\\svc_scan%[secret]' fs02",
    );
    // an `@` and a `.` with no domain after the `@`: a password, not an address
    masks(
        "the kiosk admin password is now 4kT@w%._Zq",
        "the kiosk admin password is now [secret]",
    );
    masks(
        "set the switch admin password to `heron.Cobalt52@`",
        "set the switch admin password to `[secret]`",
    );
    // a generated key with symbols that spell code by chance
    masks(
        "SECRET_KEY = 'q9!x(ae=2%kw@7zr&m4u*p8#h1c-t6v^y3n+b0j(f5l)g=s'",
        "SECRET_KEY = '[secret]'",
    );
    // a passphrase announced after it
    masks(
        "use harbor.walnut.pepper as the passphrase for the archive",
        "use [secret] as the passphrase for the archive",
    );
}

#[test]
fn a_resource_named_after_its_secret_is_kept() {
    keeps("kubectl -n billing describe secret ledger-db-password-4c1d9");
    keeps("the secret payments-api-token-88af2 was rotated");
    keeps("password: user@example.com");
    keeps("backup host: backups.internal.corp");
}

#[test]
fn pragma_keys_directive_values_and_setters_with_flags() {
    masks(
        "PRAGMA key = 'Marble_otter_415';",
        "PRAGMA key = '[secret]';",
    );
    masks(
        "LdapBindPassword walrusquill=57",
        "LdapBindPassword [secret]",
    );
    masks(
        "aws configure set aws_secret_access_key /Qm4kT9vLx2ZpR7wNc3bHd8fGs1jKa6eYu5oPi0Ar --profile ci",
        "aws configure set aws_secret_access_key [secret] --profile ci",
    );
    masks("SMTP_PASSWORD=wqzkrtvbnm", "SMTP_PASSWORD=[secret]");
    // a word, or a key=value after a word in prose, is still no value
    keeps("POSTGRES_PASSWORD=postgres");
    keeps("the password option=strict is set in the form");
    keeps("PRAGMA journal_mode = WAL;");
}

#[test]
fn a_bare_key_with_an_api_key_after_it_and_terraform_host_tokens() {
    masks(
        "weather.key=5e8d2c7f1a9b4e3d6c0f8a2b7e5d1c94",
        "weather.key=[secret]",
    );
    masks(
        "export TF_TOKEN_tfe_example_net=Rk4mT9vLx2ZpQ7wN.atlasv1.Cb3HdfGs1jKa6eYu5oPi0Ar8",
        "export TF_TOKEN_tfe_example_net=[secret]",
    );
    masks(
        "echo Rk4mT9vLx2ZpQ7wNc3bHd8fGs1jKa6eY | gh auth login --with-token",
        "echo [secret] | gh auth login --with-token",
    );
    // a cache key and a commit under a bare `key` stay
    keeps("key: node-modules-9f1c3e5a7b2d4f6e8a0c1b3d5f7e9a2c4b6d8f0e1a3c5e7b9d2f4a6c8e0b1d3f");
    keeps("key: 3f2a9c5e7b1d2468ace0f3a9c5e7b1d2468ace0f");
    keeps("TF_TOKEN_ is followed by the host name with dots as underscores");
}

#[test]
fn defaults_of_parameter_expansions_and_app_ids_that_are_keys() {
    masks(
        "DB_PASSWORD: ${DB_PASSWORD:-Tr0ub4dor&3x}",
        "DB_PASSWORD: ${DB_PASSWORD:-[secret]}",
    );
    masks(
        "pg_dump \"postgres://etl:${ETL_PASS:-Wv8nQz3tKp}@db07/etl\"",
        "pg_dump \"postgres://etl:${ETL_PASS:-[secret]}@db07/etl\"",
    );
    masks(
        "weather.api.key=${WEATHER_KEY:5e8d2c7f1a9b4e3d6c0f8a2b7e5d1c94}",
        "weather.api.key=${WEATHER_KEY:[secret]}",
    );
    masks(
        "curl \"https://api.example.net/forecast?city=Oslo&appid=5e8d2c7f1a9b4e3d6c0f8a2b7e5d1c94\"",
        "curl \"https://api.example.net/forecast?city=Oslo&appid=[secret]\"",
    );
    keeps("password: ${DB_PASSWORD:?set DB_PASSWORD first}");
    keeps("token: ${GITHUB_TOKEN}");
    keeps("appid: com.example.weather");
}

#[test]
fn a_short_weak_password_after_a_password_key() {
    masks("DB_PASSWORD=walrus7", "DB_PASSWORD=[secret]");
    masks("smtp_pass: 'm0ngo5'", "smtp_pass: '[secret]'");
    // not a short name or version under another key, nor a placeholder under a password key
    keeps("hash_algorithm=sha256");
    keeps("DB_PASSWORD=changeme1");
    keeps("api_version=v2beta1");
}

#[test]
fn keys_ending_in_pw_and_haproxy_stats_auth() {
    masks("rootpw Heron-maple-58", "rootpw [secret]");
    masks("bindpw = 'Kq7!vM2xQ'", "bindpw = '[secret]'");
    masks(
        "    stats auth admin:Zq8vLm3Rt2",
        "    stats auth admin:[secret]",
    );
    keeps("    stats uri /haproxy?stats");
    keeps("the stats auth page needs a login");
}
