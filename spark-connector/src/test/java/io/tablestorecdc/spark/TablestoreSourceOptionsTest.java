package io.tablestorecdc.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.merge.VanishedChannelPolicy;
import io.tablestorecdc.checkpoint.model.TunnelType;
import io.tablestorecdc.checkpoint.settings.TunnelCreation;
import io.tablestorecdc.checkpoint.tunnel.TunnelStart;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TablestoreSourceOptionsTest {

    static Map<String, String> required() {
        Map<String, String> m = new HashMap<>();
        m.put("endpoint", "http://127.0.0.1:8080");
        m.put("instance.name", "inst");
        m.put("access.key.id", "AKID");
        m.put("access.key.secret", "TOP-SECRET-VALUE");
        m.put("table.name", "orders");
        m.put("tunnel.name", "orders_cdc");
        return m;
    }

    static Map<String, String> with(String key, String value) {
        Map<String, String> m = required();
        m.put(key, value);
        return m;
    }

    @Test
    void requiredOptionsGiveDefaults() {
        TablestoreSourceOptions o = TablestoreSourceOptions.parse(required());

        assertThat(o.tableName()).isEqualTo("orders");
        assertThat(o.tunnelName()).isEqualTo("orders_cdc");
        assertThat(o.tunnelCreate()).isEqualTo(TunnelCreation.NONE);
        assertThat(o.metaTable()).isEqualTo("tablestore_cdc_meta");
        assertThat(o.metaRetentionBatches()).isEqualTo(100);
        assertThat(o.maxRowsPerTrigger()).isEmpty();
        assertThat(o.minRowsPerTrigger()).isEmpty();
        assertThat(o.maxTriggerDelay()).isEqualTo(Duration.ofMinutes(15));
        assertThat(o.maxRowsPerChannel()).isEqualTo(100_000L);
        assertThat(o.channelReadBudget()).isEqualTo(Duration.ofSeconds(10));
        assertThat(o.maxChannelsPerPartition()).isEmpty();
        assertThat(o.onVanishedChannel()).isEqualTo(VanishedChannelPolicy.FAIL);
        assertThat(o.serverProgressInterval()).isEqualTo(Duration.ofSeconds(5));
        assertThat(o.skipInvalidData()).isFalse();
        assertThat(o.ignoreDelete()).isFalse();
        assertThat(o.tablestoreEndpoint().credentials().fixedCredentials().orElseThrow().stsToken())
                .isEmpty();
    }

    @Test
    void everyOptionIsReadWhateverTheCaseOfItsKey() {
        Map<String, String> m = new HashMap<>();
        m.put("ENDPOINT", "https://inst.cn-hangzhou.ots.aliyuncs.com");
        m.put("Instance.Name", "inst");
        m.put("ACCESS.KEY.ID", "AKID");
        m.put("Access.Key.Secret", "s");
        m.put("STS.Token", "sts");
        m.put("Table.Name", "t");
        m.put("TUNNEL.NAME", "tn");
        m.put("Tunnel.Create", "Base-And-Stream");
        m.put("Tunnel.Start", "2024-05-01T00:00:00Z");
        m.put("Meta.Table", "my_meta");
        m.put("META.RETENTION.BATCHES", "7");
        m.put("Max.Rows.Per.Trigger", "500");
        m.put("MAX.ROWS.PER.CHANNEL", "50");
        m.put("Channel.Read.Budget", "1500ms");
        m.put("Max.Channels.Per.Partition", "64");
        m.put("On.Vanished.Channel", "WARN");
        m.put("Server.Progress.Interval", "0s");
        m.put("Skip.Invalid.Data", "TRUE");
        m.put("Ignore.Delete", "true");

        TablestoreSourceOptions o = TablestoreSourceOptions.parse(m);

        assertThat(o.tunnelCreate().tunnelType()).contains(TunnelType.BASE_AND_STREAM);
        assertThat(o.tunnelStart())
                .isEqualTo(TunnelStart.at(Instant.parse("2024-05-01T00:00:00Z")));
        assertThat(o.metaTable()).isEqualTo("my_meta");
        assertThat(o.metaRetentionBatches()).isEqualTo(7);
        assertThat(o.maxRowsPerTrigger()).hasValue(500L);
        assertThat(o.maxRowsPerChannel()).isEqualTo(50L);
        assertThat(o.channelReadBudget()).isEqualTo(Duration.ofMillis(1500));
        assertThat(o.maxChannelsPerPartition()).hasValue(64);
        assertThat(o.onVanishedChannel()).isEqualTo(VanishedChannelPolicy.WARN);
        assertThat(o.serverProgressInterval()).isZero();
        assertThat(o.skipInvalidData()).isTrue();
        assertThat(o.ignoreDelete()).isTrue();
        assertThat(o.tablestoreEndpoint().credentials().fixedCredentials().orElseThrow().stsToken())
                .contains("sts");
    }

    @Test
    void tunnelStartKeywords() {
        assertThat(parse("tunnel.create", "stream").tunnelStart()).isEqualTo(TunnelStart.latest());
        Map<String, String> m = with("tunnel.create", "stream");
        m.put("tunnel.start", "EARLIEST");
        assertThat(TablestoreSourceOptions.parse(m).tunnelStart())
                .isEqualTo(TunnelStart.earliest());
    }

    @Test
    void missingRequiredOptionsAreAllNamed() {
        assertThatThrownBy(() -> TablestoreSourceOptions.parse(Map.of("table.name", "t")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Missing required option 'endpoint'")
                .hasMessageContaining("Missing required option 'instance.name'")
                .hasMessageContaining("Missing required option 'access.key.id'")
                .hasMessageContaining("Missing required option 'access.key.secret'")
                .hasMessageContaining("Missing required option 'tunnel.name'")
                .hasMessageNotContaining("'table.name'")
                .hasMessageContaining(".option(\"tunnel.name\", ...)");
    }

    @Test
    void unknownOptionWithOurPrefixFails() {
        assertThatThrownBy(() -> TablestoreSourceOptions.parse(with("tunnel.nmae", "x")))
                .hasMessageContaining("Unknown option 'tunnel.nmae'")
                .hasMessageContaining("remove it or use one of");
        assertThatThrownBy(() -> TablestoreSourceOptions.parse(with("max.offsets", "1")))
                .hasMessageContaining("Unknown option 'max.offsets'");
    }

    @Test
    void optionSpelledWithoutDotsGetsASuggestion() {
        assertThatThrownBy(() -> TablestoreSourceOptions.parse(with("maxRowsPerTrigger", "10")))
                .hasMessageContaining(
                        "Unknown option 'maxRowsPerTrigger': did you mean 'max.rows.per.trigger'?");
    }

    @Test
    void optionsOfOtherComponentsAreLeftAlone() {
        assertThat(TablestoreSourceOptions.parse(with("path", "/x")).tableName())
                .isEqualTo("orders");
        assertThat(TablestoreSourceOptions.parse(with("checkpointLocation", "/c")).tableName())
                .isEqualTo("orders");
    }

    @Test
    void badValuesNameTheOptionAndTheFix() {
        assertBad("tunnel.create", "always", "use none (default), stream, base or base-and-stream");
        assertBad("max.rows.per.trigger", "0", "use a whole number >= 1");
        assertBad("max.rows.per.trigger", "ten", "use a whole number >= 1");
        assertBad("max.rows.per.channel", "-5", "use a whole number >= 1");
        assertBad("min.rows.per.trigger", "0", "use a whole number >= 1");
        assertBad("max.trigger.delay", "later", "use a positive duration such as 500ms");
        assertBad("max.channels.per.partition", "0", "use a whole number >= 1");
        assertBad("meta.retention.batches", "1", "use a whole number >= 2");
        assertBad("channel.read.budget", "soon", "use a positive duration such as 500ms");
        assertBad("channel.read.budget", "0s", "use a positive duration");
        assertBad("server.progress.interval", "-1s", "use a duration of zero or more such as 0s");
        assertBad("server.progress.interval", "often", "use a duration of zero or more");
        assertBad("on.vanished.channel", "ignore", "use fail (default) or warn");
        assertBad("skip.invalid.data", "yes", "use true or false");
        assertBad("ignore.delete", "1", "use true or false");
        assertBad("endpoint", "127.0.0.1:8080", "expected http(s)://host[:port]");
        assertBad("instance.name", "bad name", "Invalid instance name");
    }

    /** The core words these; Flink's TablestoreCdcOptionsTest asserts the same lines. */
    @Test
    void aBadSharedValueReadsAsInFlink() {
        Map<String, String> m = with("tunnel.create", "always");
        m.put("tunnel.start", "yesterday");
        m.put("Skip.Invalid.Data", "yes");

        assertThatThrownBy(() -> TablestoreSourceOptions.parse(m))
                .hasMessage(
                        "Invalid options for format(\"tablestore-cdc\"):\n"
                                + "  - Option 'tunnel.create' has invalid value 'always': use none"
                                + " (default), stream, base or base-and-stream\n"
                                + "  - Option 'tunnel.start' has invalid value 'yesterday': use"
                                + " latest (default), earliest or an ISO-8601 instant such as"
                                + " 2024-05-01T00:00:00Z\n"
                                + "  - Option 'skip.invalid.data' has invalid value 'yes': use true"
                                + " or false (default)\n"
                                + "See docs/spark.md for every option.");
    }

    /** Flink's TablestoreCdcSourceBuilderTest asserts the same line for its builder. */
    @Test
    void aBadEndpointReadsAsInFlink() {
        assertThatThrownBy(() -> parse("endpoint", "127.0.0.1:8080"))
                .hasMessageContaining(
                        "\n  - Option 'endpoint': Invalid endpoint '127.0.0.1:8080': expected"
                                + " http(s)://host[:port] with no path, for example"
                                + " https://myinstance.cn-hangzhou.ots.aliyuncs.com\n");
    }

    @Test
    void tunnelStartNeedsATunnelThisQueryCreates() {
        assertBad("tunnel.start", "earliest", "set tunnel.create to stream or base-and-stream");
        Map<String, String> m = with("tunnel.create", "stream");
        m.put("tunnel.start", "yesterday");
        assertThatThrownBy(() -> TablestoreSourceOptions.parse(m))
                .hasMessageContaining("'tunnel.start' has invalid value 'yesterday'")
                .hasMessageContaining("ISO-8601 instant");
    }

    @Test
    void durationsInShortAndIsoForm() {
        assertThat(TablestoreSourceOptions.parseDuration("250ms")).contains(Duration.ofMillis(250));
        assertThat(TablestoreSourceOptions.parseDuration("30s")).contains(Duration.ofSeconds(30));
        assertThat(TablestoreSourceOptions.parseDuration("2 min")).contains(Duration.ofMinutes(2));
        assertThat(TablestoreSourceOptions.parseDuration("1h")).contains(Duration.ofHours(1));
        assertThat(TablestoreSourceOptions.parseDuration("PT5S")).contains(Duration.ofSeconds(5));
        assertThat(TablestoreSourceOptions.parseDuration("5 parsecs")).isEmpty();
    }

    @Test
    void secretAndStsTokenNeverInToString() {
        Map<String, String> m = with("sts.token", "STS-TOKEN-VALUE");
        String text = TablestoreSourceOptions.parse(m).toString();

        assertThat(text).doesNotContain("TOP-SECRET-VALUE").doesNotContain("STS-TOKEN-VALUE");
        assertThat(text).contains("access.key.secret=******").contains("sts.token=******");
        assertThat(text).contains("AKID").contains("orders");
    }

    @Test
    void secretNeverInValidationErrors() {
        Map<String, String> m = with("tunnel.create", "nope");
        assertThatThrownBy(() -> TablestoreSourceOptions.parse(m))
                .hasMessageNotContaining("TOP-SECRET-VALUE");
    }

    @Test
    void survivesJavaSerializationForExecutors() throws Exception {
        TablestoreSourceOptions original = parse("ignore.delete", "true");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(original);
        }
        TablestoreSourceOptions copy;
        try (ObjectInputStream in =
                new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            copy = (TablestoreSourceOptions) in.readObject();
        }
        assertThat(copy.tablestoreEndpoint()).isEqualTo(original.tablestoreEndpoint());
        assertThat(copy.ignoreDelete()).isTrue();
    }

    private static TablestoreSourceOptions parse(String key, String value) {
        return TablestoreSourceOptions.parse(with(key, value));
    }

    private static void assertBad(String key, String value, String fix) {
        assertThatThrownBy(() -> parse(key, value))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + key + "'")
                .hasMessageContaining(fix);
    }

    @Test
    void aMinimumPerTriggerWaitsAtMostTheTriggerDelay() {
        Map<String, String> m = with("min.rows.per.trigger", "1000");
        m.put("max.trigger.delay", "30s");
        m.put("max.rows.per.trigger", "5000");

        TablestoreSourceOptions o = TablestoreSourceOptions.parse(m);

        assertThat(o.minRowsPerTrigger()).hasValue(1000L);
        assertThat(o.maxTriggerDelay()).isEqualTo(Duration.ofSeconds(30));
        assertThat(o.toString())
                .contains("min.rows.per.trigger=1000, max.trigger.delay=PT30S")
                .contains("max.rows.per.trigger=5000");
    }

    @Test
    void aTriggerDelayWithoutAMinimumNamesTheMissingOption() {
        assertThatThrownBy(() -> TablestoreSourceOptions.parse(with("max.trigger.delay", "1m")))
                .hasMessageContaining(
                        "Option 'max.trigger.delay' only bounds the wait that"
                                + " 'min.rows.per.trigger' sets: set min.rows.per.trigger too, or"
                                + " remove max.trigger.delay.");
    }

    @Test
    void aMinimumAboveTheMaximumNamesBoth() {
        Map<String, String> m = with("min.rows.per.trigger", "1000");
        m.put("max.rows.per.trigger", "10");

        assertThatThrownBy(() -> TablestoreSourceOptions.parse(m))
                .hasMessageContaining(
                        "Option 'min.rows.per.trigger' (1000) is larger than"
                                + " 'max.rows.per.trigger' (10): no batch could satisfy both."
                                + " Lower min.rows.per.trigger or raise max.rows.per.trigger.");
    }
}
