package io.tablestorecdc.flink.source.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import io.tablestorecdc.emulator.testkit.EmulatorBed;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The DataStream quick start of docs/flink.md is the code {@link DataStreamQuickStart} runs, with
 * the imports it needs, and it works on a fresh setup: against an emulator holding only an {@code
 * orders} table, it creates its tunnel and reads the table's changes from the earliest one.
 */
class QuickStartDocITCase {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    private static final Path PAGE = Path.of("..", "docs", "flink.md");

    /** Through the repository root, so that flink-connector-2, which has no sources, finds it. */
    private static final Path SOURCE =
            Path.of(
                    "..",
                    "flink-connector",
                    "src/test/java/io/tablestorecdc/flink/source/docs/DataStreamQuickStart.java");

    @RegisterExtension static final EmulatorBed bed = EmulatorBed.perClass();

    @Test
    void thePagesCodeBlockIsTheCodeThatRuns() throws Exception {
        String page = Files.readString(PAGE, StandardCharsets.UTF_8);
        int open =
                page.indexOf("```java\n", page.indexOf("## DataStream quick start"))
                        + "```java\n".length();
        String block = page.substring(open, page.indexOf("```\n", open));

        assertThat(block).isEqualTo(imports() + "\n" + snippet());
    }

    @Test
    void itReadsTheChangesOfAFreshTable() throws Exception {
        TableMeta meta = new TableMeta("orders");
        meta.addPrimaryKeyColumn("id", PrimaryKeyType.STRING);
        bed.sync().createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
        bed.put("orders", "o1", new Column("amount", ColumnValue.fromLong(10)));
        bed.put("orders", "o2", new Column("amount", ColumnValue.fromLong(20)));

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        List<RowData> rows =
                DataStreamQuickStart.build(
                                env,
                                bed.emulator().endpoint(),
                                bed.emulator().instanceName(),
                                bed.emulator().accessKeyId(),
                                bed.emulator().accessKeySecret())
                        .executeAndCollect(2);

        assertThat(rows)
                .extracting(r -> r.getString(0).toString() + "=" + r.getLong(1))
                .containsExactly("o1=10", "o2=20");
    }

    /** The import lines of DataStreamQuickStart.java: what the snippet needs to compile. */
    private static String imports() throws Exception {
        return Files.readString(SOURCE, StandardCharsets.UTF_8)
                .lines()
                .filter(line -> line.startsWith("import "))
                .collect(Collectors.joining("\n", "", "\n"));
    }

    /** The marked lines of DataStreamQuickStart.java, without the method's indentation. */
    private static String snippet() throws Exception {
        String source = Files.readString(SOURCE, StandardCharsets.UTF_8);
        int from =
                source.indexOf(DataStreamQuickStart.START + "\n")
                        + DataStreamQuickStart.START.length()
                        + 1;
        int to =
                source.lastIndexOf("\n", source.indexOf("        " + DataStreamQuickStart.END)) + 1;
        return source.substring(from, to)
                .lines()
                .map(line -> line.startsWith("        ") ? line.substring(8) : line)
                .collect(Collectors.joining("\n", "", "\n"));
    }
}
