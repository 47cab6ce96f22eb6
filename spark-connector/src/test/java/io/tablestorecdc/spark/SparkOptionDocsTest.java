package io.tablestorecdc.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.checkpoint.settings.OptionSpec;
import io.tablestorecdc.checkpoint.settings.SourceOption;
import io.tablestorecdc.checkpoint.testing.GeneratedDocs;
import io.tablestorecdc.checkpoint.testing.OptionTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The options table of docs/spark.md is generated from the option declarations. */
class SparkOptionDocsTest {

    /** What the Spark source does beyond the shared description. */
    private static final Map<String, String> SPARK_REMARKS =
            Map.of(
                    "tunnel.start",
                    "Set with `tunnel.create` = `none` or `base`, `load()` fails.",
                    "skip.invalid.data",
                    "Counted in the `skippedInvalidRecords` task metric.",
                    "credentials.provider",
                    "See \"Credentials\" below.",
                    "table.name",
                    "See \"Many tables in one query\" below.");

    static List<OptionSpec> sourceOptions() {
        List<OptionSpec> all = new ArrayList<>();
        for (SourceOption option : SourceOption.values()) {
            all.add(option.spec());
        }
        all.addAll(TablestoreSourceOptions.SPARK_ONLY_OPTIONS);
        return all;
    }

    @Test
    void theOptionsTableIsGeneratedFromTheDeclarations() throws Exception {
        GeneratedDocs.check(
                GeneratedDocs.page("spark.md"),
                "spark-source-options",
                OptionTable.markdown(
                        sourceOptions(), spec -> SPARK_REMARKS.getOrDefault(spec.key(), "")));
    }

    @Test
    void everyOptionTheSourceReadsIsDeclaredOnce() {
        Set<String> declared = new TreeSet<>();
        sourceOptions().forEach(spec -> assertThat(declared.add(spec.key())).isTrue());
        assertThat(declared).isEqualTo(new TreeSet<>(TablestoreSourceOptions.KNOWN));
    }

    @Test
    void eachDeclaredDefaultIsWhatTheSourceUsesWhenTheOptionIsUnset() {
        TablestoreSourceOptions defaults =
                TablestoreSourceOptions.parse(
                        Map.of(
                                "endpoint", "http://127.0.0.1:1",
                                "instance.name", "inst",
                                "access.key.id", "id",
                                "access.key.secret", "secret",
                                "table.name", "orders",
                                "tunnel.name", "t"));
        assertThat(TablestoreSourceOptions.MAX_ROWS_PER_CHANNEL_SPEC.defaultValue())
                .contains(Long.toString(defaults.maxRowsPerChannel()));
        assertThat(defaults.maxTriggerDelay()).hasMinutes(15);
        assertThat(defaults.channelReadBudget()).hasSeconds(10);
        assertThat(defaults.serverProgressInterval()).hasSeconds(5);
        assertThat(defaults.onVanishedChannel().toString())
                .isEqualTo(
                        TablestoreSourceOptions.ON_VANISHED_CHANNEL_SPEC
                                .defaultValue()
                                .orElseThrow());
        assertThat(defaults.maxRowsPerTrigger()).isEmpty();
        assertThat(defaults.maxChannelsPerPartition()).isEmpty();
    }
}
