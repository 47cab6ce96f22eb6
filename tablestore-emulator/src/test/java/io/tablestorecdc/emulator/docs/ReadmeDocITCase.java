package io.tablestorecdc.emulator.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.DescribeTableRequest;
import com.alicloud.openservices.tablestore.model.DescribeTableResponse;
import com.alicloud.openservices.tablestore.model.Direction;
import com.alicloud.openservices.tablestore.model.GetRangeRequest;
import com.alicloud.openservices.tablestore.model.GetRowRequest;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeySchema;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.PutRowRequest;
import com.alicloud.openservices.tablestore.model.RangeRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.Row;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.SingleRowQueryCriteria;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import io.tablestorecdc.emulator.EmulatorMain;
import io.tablestorecdc.emulator.TablestoreEmulator;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The code blocks of the emulator's README ("Run it") are code that runs:
 *
 * <ul>
 *   <li>the "Embedded (tests)" block is the test method {@link #readsBackARow()} between the
 *       markers below, character for character, and runs as a test of this class;
 *   <li>the "Standalone" command line, with every flag it names given a value, starts the emulator
 *       in its own JVM with {@code --load} of the README's JSON sample; the ready line it prints
 *       has the README's form, and the tables and rows the sample declares are there, each table
 *       with a stream.
 * </ul>
 *
 * The README's first line there ({@code mvn ... package}) builds the runnable jar, which exists
 * only after this module's tests ran; the JVM here runs the same main class from the test class
 * path (the jar itself is run by the e2e module's docs tests).
 */
class ReadmeDocITCase {

    private static final Path README = Path.of("README.md");
    private static final String START = "// [START embedded]";
    private static final String END = "// [END embedded]";

    @TempDir Path dir;

    // [START embedded]
    @Test
    void readsBackARow() {
        try (TablestoreEmulator emulator = TablestoreEmulator.builder().build().start()) {
            SyncClient client = emulator.newSyncClient(); // signed with the emulator's credentials
            try {
                TableMeta orders = new TableMeta("orders");
                orders.addPrimaryKeyColumn("id", PrimaryKeyType.STRING);
                client.createTable(new CreateTableRequest(orders, new TableOptions(-1, 1)));

                PrimaryKey o1 =
                        PrimaryKeyBuilder.createPrimaryKeyBuilder()
                                .addPrimaryKeyColumn("id", PrimaryKeyValue.fromString("o1"))
                                .build();
                RowPutChange put = new RowPutChange("orders", o1);
                put.addColumn("amount", ColumnValue.fromLong(10));
                client.putRow(new PutRowRequest(put));

                SingleRowQueryCriteria get = new SingleRowQueryCriteria("orders", o1);
                get.setMaxVersions(1);
                Row row = client.getRow(new GetRowRequest(get)).getRow();
                assertEquals(10, row.getLatestColumn("amount").getValue().asLong());
            } finally {
                client.shutdown();
            }
        }
    }

    // [END embedded]

    @Test
    void theEmbeddedBlockIsTheTestAbove() throws Exception {
        String readme = Files.readString(README, StandardCharsets.UTF_8);
        String block = block(readme, "### Embedded (tests)", "```java\n");

        assertThat(block).isNotBlank().isEqualTo(snippet());
    }

    @Test
    void theStandaloneCommandLoadsTheSampleAndPrintsTheReadyLine() throws Exception {
        String readme = Files.readString(README, StandardCharsets.UTF_8);
        String standalone = block(readme, "### Standalone", "```\n");
        String readyLine = block(readme, "When it serves it prints", "```\n").strip();
        Path sample = dir.resolve("orders.json");
        Files.writeString(sample, block(readme, "`--load FILE`", "```json\n"));

        // The command line as the README gives it, each [--flag VALUE] filled in.
        String synopsis =
                standalone
                        .lines()
                        .filter(l -> !l.startsWith("mvn "))
                        .collect(Collectors.joining("\n"))
                        .replace("\\\n", " ");
        assertThat(synopsis)
                .startsWith("java -jar tablestore-emulator/target/tablestore-emulator.jar ");
        List<String> flags = new ArrayList<>();
        var optional = Pattern.compile("\\[(--[a-z-]+) [A-Z]+\\]").matcher(synopsis);
        while (optional.find()) {
            flags.add(optional.group(1));
        }
        assertThat(flags)
                .containsExactly(
                        "--port",
                        "--instance",
                        "--access-key-id",
                        "--access-key-secret",
                        "--data-dir",
                        "--idle-timeout-ms");
        List<String> args = new ArrayList<>();
        for (String flag : flags) {
            args.add(flag);
            args.add(
                    switch (flag) {
                        case "--port" -> "0";
                        case "--instance" -> "docs";
                        case "--access-key-id" -> "docs-id";
                        case "--access-key-secret" -> "docs-secret";
                        case "--data-dir" -> dir.resolve("data").toString();
                        default -> "30000";
                    });
        }
        args.addAll(List.of("--load", sample.toString()));

        Path stdout = dir.resolve("stdout.log");
        Path stderr = dir.resolve("stderr.log");
        Process server = java(args, stdout, stderr);
        try {
            String ready = firstLine(server, stdout);
            assertThat(ready)
                    .as("the ready line; stderr:\n%s", Files.readString(stderr))
                    .isNotNull()
                    .matches(
                            Pattern.quote(readyLine)
                                    .replace("PORT", "\\E[0-9]+\\Q")
                                    .replace("NAME", "\\Edocs\\Q"));
            assertThat(Files.readString(stderr))
                    .as("the summary of --load")
                    .contains("loaded 1 table(s) and 1 row(s) from " + sample);
            String endpoint = ready.replaceAll(".*endpoint=(\\S+).*", "$1");

            SyncClient client = new SyncClient(endpoint, "docs-id", "docs-secret", "docs");
            try {
                assertThat(client.listTable().getTableNames()).containsExactly("orders");
                DescribeTableResponse orders =
                        client.describeTable(new DescribeTableRequest("orders"));
                assertThat(orders.getTableMeta().getPrimaryKeyList())
                        .extracting(PrimaryKeySchema::getName, PrimaryKeySchema::getType)
                        .containsExactly(tuple("id", PrimaryKeyType.STRING));
                assertThat(orders.getStreamDetails().isEnableStream())
                        .as("every table gets a stream")
                        .isTrue();
                assertThat(rows(client, "orders")).containsExactly("o1 {amount=10, status=NEW}");
            } finally {
                client.shutdown();
            }
            server.destroy();
            assertThat(server.waitFor(30, TimeUnit.SECONDS)).as("stopped").isTrue();
            assertThat(Files.readAllLines(stdout)).as("all of stdout").containsExactly(ready);
        } finally {
            server.destroyForcibly();
        }
    }

    /** Every row of {@code table}: its key, then its columns by name. */
    private static List<String> rows(SyncClient client, String table) {
        RangeRowQueryCriteria range = new RangeRowQueryCriteria(table);
        range.setInclusiveStartPrimaryKey(
                PrimaryKeyBuilder.createPrimaryKeyBuilder()
                        .addPrimaryKeyColumn("id", PrimaryKeyValue.INF_MIN)
                        .build());
        range.setExclusiveEndPrimaryKey(
                PrimaryKeyBuilder.createPrimaryKeyBuilder()
                        .addPrimaryKeyColumn("id", PrimaryKeyValue.INF_MAX)
                        .build());
        range.setDirection(Direction.FORWARD);
        range.setMaxVersions(1);
        List<String> rows = new ArrayList<>();
        for (Row row : client.getRange(new GetRangeRequest(range)).getRows()) {
            TreeMap<String, Object> columns = new TreeMap<>();
            for (Column column : row.getColumns()) {
                columns.put(column.getName(), column.getValue().getValue());
            }
            rows.add(
                    row.getPrimaryKey().getPrimaryKeyColumn("id").getValue().asString()
                            + " "
                            + columns);
        }
        return rows;
    }

    /** The first fenced block that opens with {@code fence} after {@code heading}. */
    private static String block(String readme, String heading, String fence) {
        int section = readme.indexOf(heading);
        assertThat(section).as("the README's %s", heading).isNotNegative();
        int open = readme.indexOf(fence, section) + fence.length();
        return readme.substring(open, readme.indexOf("```\n", open));
    }

    /** The marked lines of this file, without the class body's indentation. */
    private static String snippet() throws Exception {
        String source =
                Files.readString(
                        Path.of(
                                "src/test/java/io/tablestorecdc/emulator/docs/ReadmeDocITCase.java"),
                        StandardCharsets.UTF_8);
        int from = source.indexOf("    " + START + "\n") + START.length() + 5;
        int to = source.indexOf("    " + END + "\n");
        assertThat(from).as("the start marker").isGreaterThan(START.length() + 4);
        assertThat(to).as("the end marker").isGreaterThan(from);
        return source.substring(from, to)
                .stripTrailing()
                .lines()
                .map(line -> line.startsWith("    ") ? line.substring(4) : line)
                .collect(Collectors.joining("\n", "", "\n"));
    }

    /** The first line {@code process} wrote to {@code stdout}, once complete; null if it ended. */
    private static String firstLine(Process process, Path stdout) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            String text = Files.readString(stdout, StandardCharsets.UTF_8);
            if (text.contains("\n")) {
                return text.substring(0, text.indexOf('\n'));
            }
            if (!process.isAlive()) {
                return null;
            }
            Thread.sleep(20);
        }
        return null;
    }

    private static Process java(List<String> args, Path stdout, Path stderr) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(EmulatorMain.class.getName());
        command.addAll(args);
        return new ProcessBuilder(command)
                .redirectOutput(stdout.toFile())
                .redirectError(stderr.toFile())
                .start();
    }
}
