package io.tablestorecdc.flink.table;

import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import io.tablestorecdc.emulator.testkit.EmulatorBed;
import io.tablestorecdc.flink.testing.FlinkJobs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The SQL quick start of docs/flink.md works on a fresh setup as written: its {@code SET} turns
 * checkpointing on (the job's environment does not), and its {@code CREATE TABLE} (with only the
 * endpoint, instance and credentials set to an emulator's) creates its tunnel and reads the rows
 * the table holds, then the changes after them.
 */
class SqlQuickStartDocITCase {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    private static final Path PAGE = Path.of("..", "docs", "flink.md");
    private static final Pattern SET = Pattern.compile("SET '([^']+)' = '([^']+)'");
    private static final Duration TIMEOUT = Duration.ofSeconds(120);

    @RegisterExtension static final EmulatorBed bed = EmulatorBed.perClass();

    @Test
    void theSqlQuickStartReadsTheTableThenItsChanges() throws Exception {
        TableMeta meta = new TableMeta("orders");
        meta.addPrimaryKeyColumn("id", PrimaryKeyType.STRING);
        bed.sync().createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
        bed.put("orders", "o1", amount(10), status("NEW"));
        bed.put("orders", "o2", amount(20), status("PAID"));

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        // The page's statements as they are (checkpointing from its SET), but a shorter interval.
        for (String statement : connectedToTheEmulator(sqlBlock()).split(";\\s*\\n")) {
            Matcher set = SET.matcher(statement.strip());
            if (set.matches()) { // as the SQL Client runs a SET: into the session's configuration
                tEnv.getConfig().set(set.group(1), set.group(2).replace("10s", "1s"));
            } else {
                tEnv.executeSql(statement);
            }
        }
        TableResult result = tEnv.executeSql("SELECT id, amount, status, op FROM orders");

        Set<String> seen = new TreeSet<>();
        ExecutorService reader = Executors.newSingleThreadExecutor();
        try (CloseableIterator<Row> rows = result.collect()) {
            Future<?> reading =
                    reader.submit(
                            () -> {
                                boolean wroteO3 = false;
                                while (rows.hasNext()) {
                                    Row row = rows.next();
                                    seen.add(
                                            row.getField(0)
                                                    + ","
                                                    + row.getField(1)
                                                    + ","
                                                    + row.getField(2));
                                    if (!wroteO3 && seen.size() == 2) {
                                        bed.put("orders", "o3", amount(30), status("NEW"));
                                        wroteO3 = true;
                                    }
                                    if (seen.size() == 3) {
                                        return;
                                    }
                                }
                            });
            reading.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } finally {
            reader.shutdownNow();
            result.getJobClient().ifPresent(FlinkJobs::cancelAndAwaitEnd);
        }
        assertThat(seen).containsExactly("o1,10,NEW", "o2,20,PAID", "o3,30,NEW");
    }

    private static String sqlBlock() throws Exception {
        String page = Files.readString(PAGE, StandardCharsets.UTF_8);
        int open =
                page.indexOf("```sql\n", page.indexOf("## SQL quick start")) + "```sql\n".length();
        return page.substring(open, page.indexOf("```\n", open)).trim().replaceAll(";$", "");
    }

    /** The page's DDL with only its connection values replaced by the emulator's. */
    private static String connectedToTheEmulator(String ddl) {
        return set(
                set(
                        set(
                                set(ddl, "endpoint", bed.emulator().endpoint()),
                                "instance.name",
                                bed.emulator().instanceName()),
                        "access.key.id",
                        bed.emulator().accessKeyId()),
                "access.key.secret",
                bed.emulator().accessKeySecret());
    }

    private static String set(String ddl, String key, String value) {
        String replaced =
                ddl.replaceFirst(
                        "'" + java.util.regex.Pattern.quote(key) + "'(\\s*)=(\\s*)'[^']*'",
                        "'" + key + "'$1=$2'" + value + "'");
        assertThat(replaced).as("the page's DDL sets '%s'", key).isNotEqualTo(ddl);
        return replaced;
    }

    private static Column amount(long value) {
        return new Column("amount", ColumnValue.fromLong(value));
    }

    private static Column status(String value) {
        return new Column("status", ColumnValue.fromString(value));
    }
}
