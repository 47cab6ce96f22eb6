package io.tablestorecdc.flink.source.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.checkpoint.settings.OptionSpec;
import io.tablestorecdc.checkpoint.settings.SourceOption;
import io.tablestorecdc.checkpoint.testing.GeneratedDocs;
import io.tablestorecdc.checkpoint.testing.OptionTable;
import io.tablestorecdc.flink.source.TablestoreCdcSourceBuilder;
import io.tablestorecdc.flink.table.TablestoreCdcTableFactory;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.flink.configuration.ConfigOption;
import org.junit.jupiter.api.Test;

/**
 * The options table of docs/flink.md is generated from the option declarations, with the builder
 * method that sets each option in the DataStream API.
 */
class FlinkOptionDocsTest {

    /** The builder methods that set each option; the test checks that each exists. */
    private static final Map<String, List<String>> SETTERS =
            Map.ofEntries(
                    Map.entry("endpoint", List.of("setEndpoint")),
                    Map.entry("instance.name", List.of("setInstanceName")),
                    Map.entry("access.key.id", List.of("setCredentials")),
                    Map.entry("access.key.secret", List.of("setCredentials")),
                    Map.entry("sts.token", List.of("setStsToken")),
                    Map.entry("credentials.provider", List.of("setCredentialsProvider")),
                    Map.entry("credentials.ecs.role.name", List.of("setEcsRamRole")),
                    Map.entry("credentials.ecs.metadata.endpoint", List.of("setEcsRamRole")),
                    Map.entry("table.name", List.of("setTableName", "setTableNames")),
                    Map.entry("table.pattern", List.of("setTablePattern")),
                    Map.entry("table.exclude", List.of("setTableExclude")),
                    Map.entry("table.discovery.interval", List.of("setTableDiscoveryInterval")),
                    Map.entry("on.dropped.table", List.of("setOnDroppedTable")),
                    Map.entry("tunnel.name", List.of("setTunnelName")),
                    Map.entry("tunnel.create", List.of("setTunnelCreation")),
                    Map.entry("tunnel.start", List.of("setStartPosition")),
                    Map.entry("meta.table", List.of("setMetaTable")),
                    Map.entry("meta.full.snapshot.every", List.of("setMetaFullSnapshotEvery")),
                    Map.entry("meta.retention.batches", List.of("setMetaRetentionBatches")),
                    Map.entry("skip.invalid.data", List.of("setSkipInvalidData")),
                    Map.entry("ignore.delete", List.of("setIgnoreDelete")),
                    Map.entry("on.server.ahead", List.of("setOnServerAhead")),
                    Map.entry("discovery.interval", List.of("setDiscoveryInterval")),
                    Map.entry("heartbeat.interval", List.of("setHeartbeatInterval")),
                    Map.entry("heartbeat.timeout", List.of("setHeartbeatTimeout")),
                    Map.entry("scan.bounded.stop-at", List.of("setStopAt")));

    /** What the Flink source does beyond the shared description. */
    private static final Map<String, String> FLINK_REMARKS =
            Map.of(
                    "tunnel.start",
                    "Set with `tunnel.create` = `none` or `base` it has no effect, and the source"
                            + " logs a warning.",
                    "skip.invalid.data",
                    "Counted in the readers' `numRecordsInErrors`.",
                    "credentials.provider",
                    "See \"Credentials\" below.",
                    "table.name",
                    "See \"Many tables in one source\" below.");

    static List<OptionSpec> sourceOptions() {
        List<OptionSpec> all = new ArrayList<>();
        for (SourceOption option : SourceOption.values()) {
            all.add(option.spec());
        }
        all.addAll(TablestoreCdcOptions.FLINK_ONLY);
        all.add(TablestoreCdcTableFactory.CHANGELOG_MODE_SPEC);
        return all;
    }

    @Test
    void theOptionsTableIsGeneratedFromTheDeclarations() throws Exception {
        GeneratedDocs.check(
                GeneratedDocs.page("flink.md"),
                "flink-source-options",
                OptionTable.markdown(sourceOptions(), FlinkOptionDocsTest::remark));
    }

    @Test
    void theSqlTableTakesExactlyTheDeclaredOptions() {
        TablestoreCdcTableFactory factory = new TablestoreCdcTableFactory();
        Set<String> taken = new TreeSet<>();
        factory.requiredOptions().stream().map(ConfigOption::key).forEach(taken::add);
        factory.optionalOptions().stream().map(ConfigOption::key).forEach(taken::add);
        assertThat(taken)
                .isEqualTo(
                        sourceOptions().stream()
                                .map(OptionSpec::key)
                                .collect(Collectors.toCollection(TreeSet::new)));
    }

    @Test
    void everyNamedBuilderMethodExists() {
        Set<String> methods =
                Arrays.stream(TablestoreCdcSourceBuilder.class.getMethods())
                        .map(Method::getName)
                        .collect(Collectors.toSet());
        SETTERS.values().forEach(names -> assertThat(methods).containsAll(names));
        assertThat(SETTERS.keySet())
                .containsExactlyInAnyOrderElementsOf(
                        sourceOptions().stream()
                                .map(OptionSpec::key)
                                .filter(key -> !key.equals("changelog.mode"))
                                .toList());
    }

    private static String remark(OptionSpec spec) {
        String more = FLINK_REMARKS.getOrDefault(spec.key(), "");
        List<String> setters = SETTERS.get(spec.key());
        if (setters == null) {
            return more;
        }
        String builder =
                "Builder: "
                        + setters.stream().map(s -> "`" + s + "`").collect(Collectors.joining(", "))
                        + ".";
        return more.isEmpty() ? builder : more + " " + builder;
    }
}
