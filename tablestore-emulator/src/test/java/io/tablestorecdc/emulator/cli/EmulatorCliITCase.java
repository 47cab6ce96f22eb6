package io.tablestorecdc.emulator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.TunnelClient;
import com.alicloud.openservices.tablestore.model.tunnel.ListTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.TunnelInfo;
import io.tablestorecdc.emulator.TablestoreEmulator;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The emulator's command line against a running emulator, as a newcomer would use it. */
class EmulatorCliITCase {

    static TablestoreEmulator emulator;

    @BeforeAll
    static void start() {
        emulator = TablestoreEmulator.builder().build().start();
    }

    @AfterAll
    static void stop() {
        emulator.close();
    }

    /** One command's exit code and output. */
    record Result(int code, String out, String err) {
        List<String> lines() {
            return out.isEmpty() ? List.of() : List.of(out.split("\n"));
        }
    }

    private static Result cli(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.add("--endpoint");
        all.add(emulator.endpoint());
        return cliWithEnv(Map.of(), all.toArray(String[]::new));
    }

    private static Result cliWithEnv(Map<String, String> env, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code =
                EmulatorCli.run(
                        args,
                        env,
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(
                code,
                out.toString(StandardCharsets.UTF_8).trim(),
                err.toString(StandardCharsets.UTF_8).trim());
    }

    @Test
    void createPutUpdateDeleteAndScanATable(@TempDir Path dir) throws Exception {
        assertThat(cli("create-table", "--table", "orders", "--pk", "id:STRING,n:INTEGER").code())
                .isZero();
        assertThat(cli("list-tables").lines()).contains("orders");
        assertThat(
                        cli(
                                "put",
                                "--table",
                                "orders",
                                "--row",
                                "{\"id\":\"a\",\"n\":1,\"amount\":9.5}"))
                .extracting(Result::code, Result::out)
                .containsExactly(0, "put 1 row(s) into orders");
        Path rows = dir.resolve("rows.jsonl");
        Files.writeString(
                rows,
                "{\"id\":\"b\",\"n\":2,\"paid\":true,\"note\":\"x\"}\n"
                        + "{\"id\":\"c\",\"n\":3,\"blob\":{\"base64\":\"AQI=\"}}\n");
        assertThat(cli("put", "--table", "orders", "--file", rows.toString()).out())
                .isEqualTo("put 2 row(s) into orders");
        assertThat(
                        cli(
                                        "update",
                                        "--table",
                                        "orders",
                                        "--row",
                                        "{\"id\":\"b\",\"n\":2,\"note\":null,\"qty\":4}")
                                .code())
                .isZero();
        assertThat(cli("delete", "--table", "orders", "--key", "{\"id\":\"c\",\"n\":3}").code())
                .isZero();

        assertThat(cli("scan", "--table", "orders").lines())
                .containsExactly(
                        "{\"id\":\"a\",\"n\":1,\"amount\":9.5}",
                        "{\"id\":\"b\",\"n\":2,\"paid\":true,\"qty\":4}");
        assertThat(cli("scan", "--table", "orders", "--limit", "1").lines()).hasSize(1);
    }

    @Test
    void createATunnelThenSplitAndMerge() {
        cli("create-table", "--table", "events", "--pk", "id:STRING");
        Result tunnel =
                cli(
                        "create-tunnel",
                        "--table",
                        "events",
                        "--tunnel",
                        "cdc",
                        "--type",
                        "base-and-stream");
        assertThat(tunnel.code()).isZero();
        assertThat(tunnel.out()).startsWith("created tunnel cdc id=");
        TunnelClient tunnels = emulator.newTunnelClient();
        try {
            assertThat(tunnels.listTunnel(new ListTunnelRequest("events")).getTunnelInfos())
                    .extracting(TunnelInfo::getTunnelName)
                    .containsExactly("cdc");
        } finally {
            tunnels.shutdown();
        }

        assertThat(cli("split", "--table", "events", "--at", "{\"id\":\"m\"}").out())
                .isEqualTo("split of events made partitions [\"p-1\",\"p-2\"]");
        assertThat(cli("merge", "--table", "events", "--at", "{\"id\":\"m\"}").out())
                .isEqualTo("merge of events made partitions [\"p-3\"]");
    }

    @Test
    void theEndpointMayComeFromTheEnvironment() {
        Result listed =
                cliWithEnv(Map.of(EmulatorCli.ENDPOINT_ENV, emulator.endpoint()), "list-tables");
        assertThat(listed.code()).isZero();
        assertThat(listed.err()).isEmpty();
    }

    @Test
    void theFormerVariableStillWorksAndNamesTheNewOne() {
        Result listed =
                cliWithEnv(
                        Map.of(EmulatorCli.OLD_ENDPOINT_ENV, emulator.endpoint()), "list-tables");
        assertThat(listed.code()).isZero();
        assertThat(listed.err())
                .contains(
                        "TABLESTORE_EMULATOR_ENDPOINT is deprecated: set TABLESTORE_ENDPOINT"
                                + " instead");
    }

    @Test
    void badInputNamesTheProblemAndTheFix() {
        assertThat(cliWithEnv(Map.of(), "list-tables"))
                .satisfies(r -> assertThat(r.code()).isEqualTo(2))
                .satisfies(r -> assertThat(r.err()).contains("--endpoint http://127.0.0.1:PORT"));
        assertThat(cli("put", "--row", "{}").err()).contains("put needs --table");
        assertThat(cli("create-table", "--table", "t", "--pk", "id:FLOAT").err())
                .contains("use STRING, INTEGER or BINARY");
        cli("create-table", "--table", "keyed", "--pk", "id:STRING");
        assertThat(cli("put", "--table", "keyed", "--row", "{\"v\":1}"))
                .satisfies(r -> assertThat(r.code()).isEqualTo(2))
                .satisfies(
                        r -> assertThat(r.err()).contains("no value for primary-key column 'id'"));
        assertThat(cli("scan", "--table", "missing"))
                .satisfies(r -> assertThat(r.code()).isEqualTo(1))
                .satisfies(r -> assertThat(r.err()).contains("OTSObjectNotExist"));
        assertThat(cli("scan", "--table", "keyed", "--bogus", "1").err())
                .contains("Unknown option --bogus");
        Result unreachable =
                cliWithEnv(Map.of(), "list-tables", "--endpoint", "http://127.0.0.1:1");
        assertThat(unreachable.code()).isEqualTo(1);
        assertThat(unreachable.err()).contains("cannot reach the emulator at http://127.0.0.1:1");
    }

    @Test
    void aLoadFileCreatesItsTablesAndRows(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("seed.json");
        Files.writeString(
                file,
                "{\"tables\":[{\"name\":\"seeded\",\"primaryKey\":\"id:STRING\","
                        + "\"rows\":[{\"id\":\"o1\",\"amount\":10},{\"id\":\"o2\",\"amount\":20}]}]}");

        assertThat(EmulatorCli.load(emulator, file))
                .isEqualTo("loaded 1 table(s) and 2 row(s) from " + file);
        assertThat(cli("scan", "--table", "seeded").lines())
                .containsExactly("{\"id\":\"o1\",\"amount\":10}", "{\"id\":\"o2\",\"amount\":20}");
    }
}
