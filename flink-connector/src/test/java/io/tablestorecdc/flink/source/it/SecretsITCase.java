package io.tablestorecdc.flink.source.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.PutRowRequest;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import io.tablestorecdc.emulator.TablestoreEmulator;
import io.tablestorecdc.emulator.testkit.EmulatorBed;
import io.tablestorecdc.emulator.testkit.LogCapture;
import io.tablestorecdc.flink.source.TablestoreCdcSource;
import io.tablestorecdc.flink.source.testing.RecordStrings;
import io.tablestorecdc.flink.testing.CommittingListSink;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.runtime.jobgraph.jsonplan.JsonPlanGenerator;
import org.apache.flink.runtime.rest.util.RestMapperUtils;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonProcessingException;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Invariant 9 (docs/design.md) end to end: the access key secret and the STS token appear in no log
 * line (the connector and the SDK at DEBUG, Flink at INFO), no failure, nothing the web UI shows of
 * a job (job configuration, execution config, plan, vertex and transformation names and
 * descriptions), and nothing the SQL planner prints.
 */
class SecretsITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = new MiniClusterExtension();

    private static final String SECRET = "SeCrEt-" + UUID.randomUUID();
    private static final String STS_TOKEN = "StSToKeN-" + UUID.randomUUID();
    private static final String WRONG_SECRET = "WrOnG-" + UUID.randomUUID();

    private static EmulatorBed bed;
    private static String tableName;

    @BeforeAll
    static void startEmulator() {
        bed = EmulatorBed.start(TablestoreEmulator.builder().accessKeySecret(SECRET));
        tableName = bed.newTable("secret_t");
        bed.createStreamTunnel(tableName, "secret_tunnel");
    }

    @AfterAll
    static void stopEmulator() {
        bed.close();
    }

    @Test
    void neitherSecretNorTokenIsLoggedOrInAFailureWhileJobsRunAndFail() throws Exception {
        List<String> logged;
        String failure;
        try (LogCapture logs =
                LogCapture.start(
                        Map.of(
                                "io.tablestorecdc", Level.DEBUG,
                                "com.alicloud", Level.DEBUG,
                                "org.apache.flink", Level.INFO))) {
            String sink = "secrets-" + UUID.randomUUID();
            JobClient job = env(source(SECRET), sink).executeAsync("secrets");
            put("a");
            awaitCommitted(sink, 1);
            job.cancel().get();

            JobClient refused = env(source(WRONG_SECRET), sink + "-wrong").executeAsync("wrong");
            Throwable error =
                    refused.getJobExecutionResult().handle((r, e) -> e).get(60, TimeUnit.SECONDS);
            assertThat(error).as("a wrong secret fails the job").isNotNull();
            failure = ExceptionUtils.stringifyException(error);
            logged = logs.lines();
        }

        assertThat(failure).contains("signature").doesNotContain(SECRET, STS_TOKEN, WRONG_SECRET);
        assertThat(String.join("\n", logged))
                .as("log lines of both jobs")
                .contains("Tablestore CDC enumerator connected")
                .doesNotContain(SECRET)
                .doesNotContain(STS_TOKEN)
                .doesNotContain(WRONG_SECRET);
    }

    @Test
    void nothingTheWebUiShowsOfADataStreamJobHoldsThem() throws Exception {
        TablestoreCdcSource<String> source = source(SECRET);
        StreamExecutionEnvironment env = env(source, "graph-" + UUID.randomUUID());
        List<String> shown = new ArrayList<>(transformations(env));
        JobGraph graph = env.getStreamGraph().getJobGraph();

        shown.addAll(whatTheWebUiShows(graph));
        shown.add(env.getConfig().toString());
        shown.add(env.getConfig().archive().getGlobalJobParameters().toString());
        shown.add(source.toString());

        assertThat(String.join("\n", shown))
                .contains("tablestore-cdc")
                .doesNotContain(SECRET)
                .doesNotContain(STS_TOKEN);
    }

    @Test
    void nothingTheSqlPlannerOrTheWebUiShowsOfASqlJobHoldsThem() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.enableCheckpointing(1_000); // an unbounded read is refused without it
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.executeSql(ddl("src", ""));
        tEnv.executeSql(ddl("bad_start", ", 'tunnel.start' = 'soon'"));

        List<String> shown = new ArrayList<>();
        shown.add(tEnv.explainSql("SELECT * FROM src", ExplainDetail.JSON_EXECUTION_PLAN));
        Table table = tEnv.sqlQuery("SELECT * FROM src");
        tEnv.toChangelogStream(table).sinkTo(new DiscardingSink<>());
        shown.addAll(transformations(env));
        shown.addAll(whatTheWebUiShows(env.getStreamGraph().getJobGraph()));
        try {
            tEnv.explainSql("SELECT * FROM bad_start");
            throw new AssertionError("a bad tunnel.start must fail at planning");
        } catch (org.apache.flink.table.api.ValidationException e) {
            shown.add(ExceptionUtils.stringifyException(e));
        }

        assertThat(String.join("\n", shown))
                .contains("TablestoreCdc", "Option 'tunnel.start' has invalid value 'soon'")
                .doesNotContain(SECRET)
                .doesNotContain(STS_TOKEN);
    }

    // ---- harness ----

    private static List<String> whatTheWebUiShows(JobGraph graph) throws JsonProcessingException {
        List<String> shown = new ArrayList<>();
        // The plan as the REST API sends it to the web UI (Flink 1.20 makes it a JSON string,
        // Flink 2.x an object the REST API renders as JSON).
        shown.add(
                RestMapperUtils.getStrictObjectMapper()
                        .writeValueAsString(JsonPlanGenerator.generatePlan(graph)));
        shown.add(graph.getJobConfiguration().toString());
        for (JobVertex vertex : graph.getVertices()) {
            shown.add(vertex.getName());
            shown.add(String.valueOf(vertex.getOperatorDescription()));
            shown.add(String.valueOf(vertex.getOperatorPrettyName()));
        }
        return shown;
    }

    private static List<String> transformations(StreamExecutionEnvironment env) {
        List<String> shown = new ArrayList<>();
        for (Transformation<?> t : env.getTransformations()) {
            for (Transformation<?> each : t.getTransitivePredecessors()) {
                shown.add(each.getName());
                shown.add(each.getDescription());
                shown.add(each.toString());
            }
        }
        return shown;
    }

    private static TablestoreCdcSource<String> source(String secret) {
        return TablestoreCdcSource.<String>builder()
                .setEndpoint(bed.emulator().endpoint())
                .setInstanceName(bed.emulator().instanceName())
                .setCredentials(bed.emulator().accessKeyId(), secret)
                .setStsToken(STS_TOKEN)
                .setTableName(tableName)
                .setTunnelName("secret_tunnel")
                .setDiscoveryInterval(Duration.ofMillis(200))
                .setHeartbeatInterval(Duration.ofSeconds(5))
                .setHeartbeatTimeout(Duration.ofSeconds(30))
                .setMetaTable("secret_meta")
                .setDeserializer(new RecordStrings())
                .build();
    }

    private static StreamExecutionEnvironment env(TablestoreCdcSource<String> source, String sink) {
        Configuration config = new Configuration();
        config.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(300));
        config.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(1);
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "tablestore-cdc")
                .sinkTo(new CommittingListSink(sink));
        return env;
    }

    private static String ddl(String name, String extraOptions) {
        return "CREATE TABLE "
                + name
                + " (id STRING, v BIGINT, PRIMARY KEY (id) NOT ENFORCED)"
                + " WITH ('connector' = 'tablestore-cdc'"
                + ", 'endpoint' = '"
                + bed.emulator().endpoint()
                + "', 'instance.name' = '"
                + bed.emulator().instanceName()
                + "', 'access.key.id' = '"
                + bed.emulator().accessKeyId()
                + "', 'access.key.secret' = '"
                + SECRET
                + "', 'sts.token' = '"
                + STS_TOKEN
                + "', 'table.name' = '"
                + tableName
                + "', 'tunnel.name' = 'secret_tunnel'"
                + extraOptions
                + ")";
    }

    private static void put(String id) {
        RowPutChange change =
                new RowPutChange(
                        tableName,
                        PrimaryKeyBuilder.createPrimaryKeyBuilder()
                                .addPrimaryKeyColumn("id", PrimaryKeyValue.fromString(id))
                                .build());
        change.addColumn(new Column("v", ColumnValue.fromLong(1)));
        bed.sync().putRow(new PutRowRequest(change));
    }

    private static void awaitCommitted(String sink, int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (CommittingListSink.committed(sink).size() < count) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out waiting for " + count + " committed changes");
            }
            Thread.sleep(50);
        }
    }
}
