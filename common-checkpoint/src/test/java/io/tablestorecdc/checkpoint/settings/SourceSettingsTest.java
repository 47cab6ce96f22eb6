package io.tablestorecdc.checkpoint.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.merge.ServerAheadPolicy;
import io.tablestorecdc.checkpoint.model.CredentialsSource;
import io.tablestorecdc.checkpoint.model.TunnelType;
import io.tablestorecdc.checkpoint.tunnel.TunnelStart;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SourceSettingsTest {

    private static final String SECRET = "TOP-SECRET-VALUE";
    private static final String STS = "STS-TOKEN-VALUE";

    static Map<String, String> required() {
        Map<String, String> m = new HashMap<>();
        m.put("endpoint", "http://127.0.0.1:8080");
        m.put("instance.name", "inst");
        m.put("access.key.id", "AKID");
        m.put("access.key.secret", SECRET);
        m.put("table.name", "orders");
        m.put("tunnel.name", "orders_cdc");
        return m;
    }

    static Map<String, String> with(String key, String value) {
        Map<String, String> m = required();
        m.put(key, value);
        return m;
    }

    static SourceSettings parse(Map<String, String> options) {
        return SourceSettings.parse(
                options, key -> "set " + key + " somehow", "the test source", "docs/test.md");
    }

    @Test
    void requiredOptionsGiveTheDeclaredDefaults() {
        SourceSettings s = parse(required());

        assertThat(s.tunnelCreation().code())
                .isEqualTo(SourceOption.TUNNEL_CREATE.defaultValue().orElseThrow())
                .isEqualTo("none");
        assertThat(TunnelStartText.format(s.tunnelStart()))
                .isEqualTo(SourceOption.TUNNEL_START.defaultValue().orElseThrow())
                .isEqualTo("latest");
        assertThat(s.metaTable())
                .isEqualTo(SourceOption.META_TABLE.defaultValue().orElseThrow())
                .isEqualTo("tablestore_cdc_meta");
        assertThat(s.skipInvalidData()).isFalse();
        assertThat(s.ignoreDelete()).isFalse();
        assertThat(String.valueOf(s.metaFullSnapshotEvery()))
                .isEqualTo(SourceOption.META_FULL_SNAPSHOT_EVERY.defaultValue().orElseThrow())
                .isEqualTo("64");
        assertThat(s.credentials().fixedCredentials().orElseThrow().stsToken()).isEmpty();
        assertThat(s.unusedTunnelStart()).isEmpty();
    }

    @Test
    void everySharedOptionIsRead() {
        Map<String, String> m = required();
        m.put("sts.token", STS);
        m.put("tunnel.create", " Base-And-Stream ");
        m.put("tunnel.start", "2024-05-01T00:00:00Z");
        m.put("meta.table", "my_meta");
        m.put("skip.invalid.data", "TRUE");
        m.put("ignore.delete", "true");
        m.put("on.server.ahead", "Skip");
        m.put("meta.full.snapshot.every", "8");

        SourceSettings s = parse(m);

        assertThat(s.metaFullSnapshotEvery()).isEqualTo(8);
        assertThat(s.tunnelCreation().tunnelType()).contains(TunnelType.BASE_AND_STREAM);
        assertThat(s.tunnelStart())
                .isEqualTo(TunnelStart.at(Instant.parse("2024-05-01T00:00:00Z")));
        assertThat(s.metaTable()).isEqualTo("my_meta");
        assertThat(s.skipInvalidData()).isTrue();
        assertThat(s.ignoreDelete()).isTrue();
        assertThat(s.onServerAhead()).isEqualTo(ServerAheadPolicy.SKIP);
        assertThat(s.tablestoreEndpoint().credentials().fixedCredentials().orElseThrow().stsToken())
                .contains(STS);
        assertThat(s.tablestoreEndpoint().instanceName()).isEqualTo("inst");
    }

    @Test
    void keysAreTheContractKeysAndEachIsDescribed() {
        assertThat(SourceOption.values())
                .extracting(SourceOption::key)
                .containsExactly(
                        "endpoint",
                        "instance.name",
                        "access.key.id",
                        "access.key.secret",
                        "sts.token",
                        "credentials.provider",
                        "credentials.ecs.role.name",
                        "credentials.ecs.metadata.endpoint",
                        "table.name",
                        "table.pattern",
                        "table.exclude",
                        "table.discovery.interval",
                        "on.dropped.table",
                        "tunnel.name",
                        "tunnel.create",
                        "tunnel.start",
                        "meta.table",
                        "meta.full.snapshot.every",
                        "meta.retention.batches",
                        "skip.invalid.data",
                        "ignore.delete",
                        "on.server.ahead");
        assertThat(SourceOption.values()).allMatch(o -> !o.description().isBlank());
        assertThat(SourceOption.values())
                .filteredOn(SourceOption::required)
                .extracting(SourceOption::key)
                .containsExactly("endpoint", "instance.name", "tunnel.name");
        assertThat(SourceOption.values())
                .filteredOn(SourceOption::secret)
                .extracting(SourceOption::key)
                .containsExactly("access.key.secret", "sts.token");
    }

    @Test
    void eachBadValueNamesTheOptionTheValueAndTheAcceptedValues() {
        assertBad(
                "tunnel.create",
                "always",
                "Option 'tunnel.create' has invalid value 'always': use none (default), stream,"
                        + " base or base-and-stream");
        assertBad(
                "tunnel.start",
                "yesterday",
                "Option 'tunnel.start' has invalid value 'yesterday': use latest (default),"
                        + " earliest or an ISO-8601 instant such as 2024-05-01T00:00:00Z");
        assertBad(
                "skip.invalid.data",
                "yes",
                "Option 'skip.invalid.data' has invalid value 'yes': use true or false (default)");
        assertBad(
                "ignore.delete",
                "1",
                "Option 'ignore.delete' has invalid value '1': use true or false (default)");
        assertBad(
                "on.server.ahead",
                "ignore",
                "Option 'on.server.ahead' has invalid value 'ignore': use fail (default) or skip");
        assertBad(
                "meta.full.snapshot.every",
                "0",
                "Option 'meta.full.snapshot.every' has invalid value '0': use a whole number from 1"
                        + " to 1000000");
        assertBad(
                "meta.table",
                " ",
                "Option 'meta.table' has invalid value '': name a table, or leave the option"
                        + " unset for tablestore_cdc_meta");
        assertBad(
                "endpoint",
                "127.0.0.1:8080",
                "Option 'endpoint': Invalid endpoint '127.0.0.1:8080': expected"
                        + " http(s)://host[:port] with no path");
        assertBad(
                "instance.name",
                "bad name",
                "Option 'instance.name': Invalid instance name 'bad name': use letters, digits,"
                        + " '_' and '-' only");
    }

    @Test
    void everyMissingOptionIsNamedWithTheEnginesWayToSetIt() {
        assertThatThrownBy(() -> parse(Map.of("table.name", "t")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Invalid options for the test source:\n  - ")
                .hasMessageContaining("Missing required option 'endpoint': set endpoint somehow")
                .hasMessageContaining("Missing required option 'instance.name'")
                .hasMessageContaining("Missing required option 'access.key.id'")
                .hasMessageContaining("Missing required option 'access.key.secret'")
                .hasMessageContaining("Missing required option 'tunnel.name'")
                .hasMessageNotContaining("'table.name'")
                .hasMessageEndingWith("\nSee docs/test.md for every option.");
        assertThatThrownBy(() -> parse(with("tunnel.name", "  ")))
                .hasMessageContaining("Missing required option 'tunnel.name'");
    }

    @Test
    void everyProblemIsReportedAtOnce() {
        Map<String, String> m = with("tunnel.create", "always");
        m.put("ignore.delete", "maybe");

        assertThatThrownBy(() -> parse(m))
                .hasMessageContaining("'tunnel.create' has invalid value 'always'")
                .hasMessageContaining("'ignore.delete' has invalid value 'maybe'");
    }

    @Test
    void aStartWithoutATunnelWithAStreamIsReportedAsUnused() {
        assertThat(parse(with("tunnel.start", "earliest")).unusedTunnelStart())
                .hasValueSatisfying(
                        text ->
                                assertThat(text)
                                        .startsWith("Option 'tunnel.start' applies only when")
                                        .contains(
                                                "set tunnel.create to stream or base-and-stream"));
        Map<String, String> base = with("tunnel.create", "base");
        base.put("tunnel.start", "earliest");
        assertThat(parse(base).unusedTunnelStart()).isPresent();
        Map<String, String> stream = with("tunnel.create", "stream");
        stream.put("tunnel.start", "earliest");
        assertThat(parse(stream).unusedTunnelStart()).isEmpty();
        assertThat(parse(stream).tunnelStart()).isEqualTo(TunnelStart.earliest());
    }

    @Test
    void readRecordsProblemsFoundBeforeIt() {
        OptionValues values = new OptionValues(required(), key -> "");
        values.problem("Unknown option 'x'");

        assertThat(SourceSettings.read(values)).isEmpty();
        assertThat(values.problems()).containsExactly("Unknown option 'x'");
    }

    @Test
    void secretsNeverInToStringNorInErrors() {
        Map<String, String> m = with("sts.token", STS);
        String text = parse(m).toString();

        assertThat(text).doesNotContain(SECRET).doesNotContain(STS);
        assertThat(text)
                .contains("access.key.secret=******", "sts.token=******", "access.key.id=AKID");
        assertThat(OptionValues.invalidValue("access.key.secret", SECRET, "fix"))
                .doesNotContain(SECRET)
                .contains("'access.key.secret'");
        m.put("tunnel.create", "nope");
        assertThatThrownBy(() -> parse(m))
                .hasMessageNotContaining(SECRET)
                .hasMessageNotContaining(STS);
    }

    @Test
    void survivesJavaSerialization() throws Exception {
        Map<String, String> m = with("tunnel.create", "stream");
        m.put("tunnel.start", "2026-01-31T08:00:00Z");
        SourceSettings original = parse(m);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(original);
        }
        try (ObjectInputStream in =
                new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            SourceSettings copy = (SourceSettings) in.readObject();
            assertThat(copy).isEqualTo(original);
            assertThat(copy.credentials()).isEqualTo(original.credentials());
            assertThat(copy.tunnelStart()).isEqualTo(original.tunnelStart());
        }
    }

    static Map<String, String> withProvider(String provider) {
        Map<String, String> m = required();
        m.remove("access.key.id");
        m.remove("access.key.secret");
        m.put("credentials.provider", provider);
        return m;
    }

    @Test
    void eachCredentialsProviderNamesItsSourceAndNoSecret() {
        assertThat(parse(required()).credentials().kind()).isEqualTo(CredentialsSource.Kind.STATIC);
        assertThat(parse(with("credentials.provider", "static")).credentials())
                .isEqualTo(parse(required()).credentials());

        SourceSettings env = parse(withProvider("env"));
        assertThat(env.credentials()).isEqualTo(CredentialsSource.environment());
        assertThat(env.accessKeyId()).isNull();
        assertThat(env.toString())
                .contains("credentials.provider=env")
                .doesNotContain("access.key");

        Map<String, String> ecs = withProvider("ecs-ram-role");
        ecs.put("credentials.ecs.role.name", "reader");
        ecs.put("credentials.ecs.metadata.endpoint", "http://127.0.0.1:9000/");
        assertThat(parse(ecs).credentials())
                .isEqualTo(
                        CredentialsSource.ecsRamRole(
                                "http://127.0.0.1:9000", java.util.Optional.of("reader")));
        assertThat(parse(withProvider("ecs-ram-role")).credentials().metadataEndpoint())
                .contains("http://100.100.100.200");
        assertThat(parse(ecs).toString())
                .contains(
                        "credentials.provider=ecs-ram-role, credentials.ecs.role.name=reader,"
                                + " credentials.ecs.metadata.endpoint=http://127.0.0.1:9000/");

        String providerClass = "io.tablestorecdc.emulator.testkit.SettableCredentialsProvider";
        assertThat(parse(withProvider(providerClass)).credentials())
                .isEqualTo(CredentialsSource.providerClass(providerClass));
    }

    @Test
    void badCredentialsOptionsNameTheFix() {
        assertBad(
                "credentials.provider",
                "ecs",
                "Option 'credentials.provider' has invalid value 'ecs': use static, env,"
                        + " ecs-ram-role or the fully qualified name of a class implementing"
                        + " com.alicloud.openservices.tablestore.core.auth.CredentialsProvider");
        assertThatThrownBy(() -> parse(withProvider("com.example.Missing")))
                .hasMessageContaining(
                        "Option 'credentials.provider' has invalid value 'com.example.Missing':"
                                + " no such class on the classpath");
        assertThatThrownBy(() -> parse(withProvider("java.lang.String")))
                .hasMessageContaining("the class does not implement");
        assertThatThrownBy(() -> parse(with("credentials.provider", "env")))
                .hasMessageContaining(
                        "Option 'access.key.id' is set, but credentials.provider = env takes"
                                + " credentials from elsewhere: remove access.key.id, or set"
                                + " credentials.provider to static")
                .hasMessageContaining("Option 'access.key.secret' is set")
                .hasMessageNotContaining(SECRET);
        assertThatThrownBy(() -> parse(with("credentials.ecs.role.name", "reader")))
                .hasMessageContaining(
                        "Option 'credentials.ecs.role.name' applies only with credentials.provider"
                                + " = ecs-ram-role");
        Map<String, String> badEndpoint = withProvider("ecs-ram-role");
        badEndpoint.put("credentials.ecs.metadata.endpoint", "100.100.100.200/latest");
        assertThatThrownBy(() -> parse(badEndpoint))
                .hasMessageContaining(
                        "Option 'credentials.ecs.metadata.endpoint' has invalid value"
                                + " '100.100.100.200/latest': use http(s)://host[:port]");
        Map<String, String> none = required();
        none.remove("access.key.id");
        assertThatThrownBy(() -> parse(none))
                .hasMessageContaining(
                        "Missing required option 'access.key.id': set access.key.id somehow (or"
                                + " set credentials.provider to env, ecs-ram-role or a provider"
                                + " class)");
    }

    @Test
    void aProviderChoiceSurvivesJavaSerialization() throws Exception {
        Map<String, String> ecs = withProvider("ecs-ram-role");
        ecs.put("credentials.ecs.role.name", "reader");
        SourceSettings original = parse(ecs);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(original);
        }
        try (ObjectInputStream in =
                new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            assertThat(((SourceSettings) in.readObject()).credentials())
                    .isEqualTo(original.credentials());
        }
    }

    private static void assertBad(String key, String value, String message) {
        assertThatThrownBy(() -> parse(with(key, value)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("\n  - " + message);
    }
}
