package io.tablestorecdc.flink.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.settings.TunnelCreation;
import io.tablestorecdc.flink.source.config.StartPosition;
import io.tablestorecdc.flink.source.testing.RecordStrings;
import java.io.ByteArrayOutputStream;
import java.io.ObjectOutputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Consumer;
import org.apache.flink.api.connector.source.Boundedness;
import org.junit.jupiter.api.Test;

/** Every validation message of the builder, modelled on KafkaSourceBuilderTest. */
class TablestoreCdcSourceBuilderTest {

    private static final String SECRET = "s3cr3t-value";
    private static final String STS = "sts-t0ken-value";

    private static TablestoreCdcSourceBuilder<String> complete() {
        return TablestoreCdcSource.<String>builder()
                .setEndpoint("https://myinstance.cn-hangzhou.ots.aliyuncs.com")
                .setInstanceName("myinstance")
                .setCredentials("AKID", SECRET)
                .setStsToken(STS)
                .setTableName("orders")
                .setTunnelName("orders-tunnel")
                .setDeserializer(new RecordStrings());
    }

    @Test
    void buildsWithDefaults() {
        TablestoreCdcSource<String> source = complete().build();

        assertThat(source.config().tunnelCreation()).isEqualTo(TunnelCreation.NONE);
        assertThat(source.config().startPosition()).isEqualTo(StartPosition.latest());
        assertThat(source.config().heartbeatInterval()).isEqualTo(Duration.ofSeconds(10));
        assertThat(source.config().discoveryInterval()).isEqualTo(Duration.ofSeconds(5));
        assertThat(source.config().metaTable()).isEqualTo("tablestore_cdc_meta");
        assertThat(source.getBoundedness()).isEqualTo(Boundedness.CONTINUOUS_UNBOUNDED);
        assertThat(source.getProducedType().getTypeClass()).isEqualTo(String.class);
    }

    @Test
    void anEndPositionMakesTheSourceBounded() {
        Instant end = Instant.parse("2026-01-31T08:00:00Z");

        TablestoreCdcSource<String> source = complete().setStopAt(end).build();

        assertThat(source.getBoundedness()).isEqualTo(Boundedness.BOUNDED);
        assertThat(source.config().stopAt()).contains(end);
        assertThat(source.toString()).contains("scan.bounded.stop-at=2026-01-31T08:00:00Z");
        assertFails(
                b -> b.setStopAt(Instant.MAX),
                "'scan.bounded.stop-at' must lie between 1970 and 9999",
                "the instant up to which changes are read");
    }

    @Test
    void keepsEverySetting() {
        Instant start = Instant.parse("2026-01-31T08:00:00Z");
        TablestoreCdcSource<String> source =
                complete()
                        .setTunnelCreation(TunnelCreation.BASE)
                        .setStartPosition(StartPosition.at(start))
                        .setMetaTable("meta")
                        .setDiscoveryInterval(Duration.ofSeconds(2))
                        .setHeartbeatInterval(Duration.ofSeconds(6))
                        .setHeartbeatTimeout(Duration.ofSeconds(60))
                        .setSkipInvalidData(true)
                        .setIgnoreDelete(true)
                        .build();

        assertThat(source.config().startPosition().instant()).contains(start);
        assertThat(source.config().metaTable()).isEqualTo("meta");
        assertThat(source.config().skipInvalidData()).isTrue();
        assertThat(source.config().ignoreDelete()).isTrue();
        assertThat(source.config().heartbeatTimeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(source.getBoundedness()).isEqualTo(Boundedness.BOUNDED);
    }

    @Test
    void namesEachMissingSettingAndItsSetter() {
        assertFails(b -> b.setEndpoint(null), "Missing required option 'endpoint'", "setEndpoint(");
        assertFails(
                b -> b.setInstanceName(" "),
                "Missing required option 'instance.name'",
                "setInstanceName(");
        assertFails(
                b -> b.setCredentials(null, SECRET),
                "Missing required option 'access.key.id'",
                "setCredentials(");
        assertFails(
                b -> b.setCredentials("AKID", ""),
                "Missing required option 'access.key.secret'",
                "setCredentials(");
        assertFails(
                b -> b.setTableName(null), "Missing required option 'table.name'", "setTableName(");
        assertFails(
                b -> b.setTunnelName(""),
                "Missing required option 'tunnel.name'",
                "setTunnelName(");
        assertFails(b -> b.setDeserializer(null), "No deserializer set", "setDeserializer(");
    }

    @Test
    void rejectsABadEndpointOrInstanceName() {
        assertFails(
                b -> b.setEndpoint("myinstance.ots.aliyuncs.com"),
                "Invalid endpoint",
                "http(s)://host[:port]");
        assertFails(b -> b.setEndpoint("https://host/path"), "Invalid endpoint", "no path");
        assertFails(
                b -> b.setInstanceName("my instance"), "Invalid instance name", "letters, digits");
    }

    /** The core words it; Spark's TablestoreSourceOptionsTest rejects the same value alike. */
    @Test
    void aBadEndpointReadsAsInSpark() {
        assertThatThrownBy(() -> complete().setEndpoint("127.0.0.1:8080").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "Invalid options for the Tablestore CDC source:\n"
                                + "  - Option 'endpoint': Invalid endpoint '127.0.0.1:8080':"
                                + " expected http(s)://host[:port] with no path, for example"
                                + " https://myinstance.cn-hangzhou.ots.aliyuncs.com\n"
                                + "See docs/flink.md for every option.");
    }

    @Test
    void takesAListOrAPatternOfTablesButNotBoth() {
        assertThat(complete().setTableNames("orders", "users").build().config())
                .satisfies(c -> assertThat(c.readsSeveralTables()).isTrue())
                .satisfies(c -> assertThat(c.forTable("users").tableName()).isEqualTo("users"));
        TablestoreCdcSource<String> pattern =
                complete()
                        .setTableName(null)
                        .setTablePattern("orders_[0-9]+")
                        .setTableExclude("orders_0")
                        .setTableDiscoveryInterval(Duration.ofSeconds(30))
                        .build();
        assertThat(pattern.config().settings().selection().pattern()).contains("orders_[0-9]+");
        assertThat(pattern.config().settings().selection().discoveryInterval())
                .isEqualTo(Duration.ofSeconds(30));
        assertThat(complete().build().config().readsSeveralTables()).isFalse();

        assertThatThrownBy(() -> complete().setTablePattern("orders_.*").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("table.pattern");
        assertThatThrownBy(() -> complete().setTableName(null).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("setTablePattern");
    }

    @Test
    void rejectsBadIntervals() {
        assertFails(
                b -> b.setDiscoveryInterval(Duration.ZERO),
                "'discovery.interval' must be positive",
                "Duration.ofSeconds(5)");
        assertFails(b -> b.setHeartbeatInterval(Duration.ofSeconds(1)), "at least 5 s", "raise it");
        assertFails(
                b ->
                        b.setHeartbeatInterval(Duration.ofSeconds(10))
                                .setHeartbeatTimeout(Duration.ofSeconds(15)),
                "at least twice the heartbeat interval",
                "raise the timeout");
        assertFails(b -> b.setHeartbeatTimeout(null), "must not be null", "defaults");
        assertFails(b -> b.setTunnelCreation(null), "must not be null", "defaults");
    }

    @Test
    void neverShowsTheSecretOrStsToken() throws Exception {
        TablestoreCdcSource<String> source = complete().build();

        assertThat(source.toString()).doesNotContain(SECRET).doesNotContain(STS).contains("AKID");
        assertThat(source.config().toString())
                .contains("access.key.secret=******")
                .contains("sts.token=******");
        // The source still ships to the cluster: it must be Java-serializable.
        ObjectOutputStream out = new ObjectOutputStream(new ByteArrayOutputStream());
        out.writeObject(source);
    }

    @Test
    void aValidationErrorNeverEchoesTheSecret() {
        assertThatThrownBy(() -> complete().setEndpoint("bad").build())
                .hasMessageNotContaining(SECRET)
                .hasMessageNotContaining(STS);
    }

    private static void assertFails(
            Consumer<TablestoreCdcSourceBuilder<String>> change, String problem, String fix) {
        TablestoreCdcSourceBuilder<String> builder = complete();
        change.accept(builder);
        assertThatThrownBy(builder::build)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(problem)
                .hasMessageContaining(fix);
    }
}
