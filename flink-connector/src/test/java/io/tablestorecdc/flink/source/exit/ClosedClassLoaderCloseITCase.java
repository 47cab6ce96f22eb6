package io.tablestorecdc.flink.source.exit;

import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.model.tunnel.TunnelType;
import io.tablestorecdc.checkpoint.meta.MetaTable;
import io.tablestorecdc.checkpoint.meta.SdkMetaTableClient;
import io.tablestorecdc.checkpoint.meta.TunnelMeta;
import io.tablestorecdc.checkpoint.model.TablestoreCredentials;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.emulator.testkit.Await;
import io.tablestorecdc.emulator.testkit.EmulatorBed;
import java.io.File;
import java.net.MalformedURLException;
import java.net.URL;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.mocks.MockSplitEnumeratorContext;
import org.apache.flink.util.FlinkUserCodeClassLoaders;
import org.apache.flink.util.MutableURLClassLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The enumerator's close on a Flink cluster, where the job manager may close the job's user-code
 * classloader before the source coordinator's close (which runs on a thread nobody waits for) is
 * done. Here the worst case, deterministically: the connector, the core and the SDK loaded through
 * Flink's own child-first classloader (with its closed-classloader check), the enumerator started,
 * then the classloader closed, then the enumerator closed. The close must still shut the tunnel
 * client down, release the owner lease and stop every thread the SDK started.
 */
class ClosedClassLoaderCloseITCase {

    /** Flink's {@code classloader.parent-first-patterns.default}. */
    private static final String[] PARENT_FIRST = {
        "java.",
        "org.apache.flink.",
        "com.esotericsoftware.kryo",
        "org.apache.hadoop.",
        "javax.annotation.",
        "org.xml",
        "javax.xml",
        "org.apache.xerces",
        "org.w3c",
        "org.rocksdb.",
        "org.slf4j",
        "org.apache.log4j",
        "org.apache.logging",
        "org.apache.commons.logging",
        "ch.qos.logback"
    };

    /** What a job jar holds besides Flink: the connector, the core, the SDK and its libraries. */
    private static final List<String> USER_CODE =
            List.of(
                    "/flink-connector",
                    "common-checkpoint",
                    "/tablestore/",
                    "tablestore-shaded",
                    "gson",
                    "guava",
                    "failureaccess",
                    "joda-time",
                    "disruptor",
                    "flatbuffers",
                    "caffeine");

    private static final String META_TABLE = "closed_loader_meta";

    @RegisterExtension static final EmulatorBed bed = EmulatorBed.perClass();

    @Test
    void theEnumeratorReleasesTheLeaseAndStopsItsThreadsAfterItsClassLoaderClosed()
            throws Throwable {
        String table = bed.newTable("orders");
        String tunnelId = bed.createTunnel(table, "cdc", TunnelType.BaseAndStream);
        SdkMetaTableClient metaClient = metaClient();
        TunnelMeta store = new MetaTable(metaClient).tunnel(tunnelId);
        MutableURLClassLoader userCode =
                FlinkUserCodeClassLoaders.childFirst(
                        userCodeUrls(), getClass().getClassLoader(), PARENT_FIRST, e -> {}, true);
        try (MockSplitEnumeratorContext<?> context = new MockSplitEnumeratorContext<>(1)) {
            context.registerReader(new ReaderInfo(0, "localhost"));
            SplitEnumerator<?, ?> enumerator = start(userCode, context, table);
            context.runPeriodicCallable(0); // one discovery round: the job has read and renewed
            assertThat(store.owner()).as("the job owns the tunnel").isPresent();
            assertThat(bed.describeTunnel(table, "cdc").getChannelInfos())
                    .anySatisfy(c -> assertThat(c.getClientId()).isNotEmpty());

            userCode.close(); // the job manager released the job's classloader first
            enumerator.close();

            assertThat(store.owner()).as("the owner lease after close").isEmpty();
            assertThat(bed.describeTunnel(table, "cdc").getChannelInfos())
                    .as("channels of the shut-down tunnel client")
                    .allSatisfy(c -> assertThat(c.getClientId()).isNullOrEmpty());
        } finally {
            metaClient.close();
        }
        // The SDK stops its executors without waiting for them: their idle threads end at once.
        Await.until(
                "no thread the enumerator started alive, now " + userCodeThreads(userCode),
                Duration.ofSeconds(5),
                () -> userCodeThreads(userCode).isEmpty());
    }

    private static SplitEnumerator<?, ?> start(
            ClassLoader userCode, MockSplitEnumeratorContext<?> context, String table)
            throws Exception {
        Class<?> driver = Class.forName(UserCodeEnumerator.class.getName(), true, userCode);
        assertThat(driver).isNotSameAs(UserCodeEnumerator.class);
        Map<String, String> settings =
                Map.of(
                        "endpoint", bed.emulator().endpoint(),
                        "instance", bed.emulator().instanceName(),
                        "accessKeyId", bed.emulator().accessKeyId(),
                        "secret", bed.emulator().accessKeySecret(),
                        "table", table,
                        "tunnel", "cdc",
                        "metaTable", META_TABLE);
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        Thread.currentThread().setContextClassLoader(userCode); // as Flink's coordinator thread
        try {
            return (SplitEnumerator<?, ?>)
                    driver.getMethod(
                                    "start",
                                    Map.class,
                                    org.apache.flink.api.connector.source.SplitEnumeratorContext
                                            .class)
                            .invoke(null, settings, context);
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
        }
    }

    private static SdkMetaTableClient metaClient() {
        return SdkMetaTableClient.connect(
                new TablestoreEndpoint(
                        bed.emulator().endpoint(),
                        bed.emulator().instanceName(),
                        TablestoreCredentials.of(
                                bed.emulator().accessKeyId(), bed.emulator().accessKeySecret())),
                META_TABLE);
    }

    /** Threads of the user code: they inherit its classloader as their context classloader. */
    private static List<String> userCodeThreads(ClassLoader userCode) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getContextClassLoader() == userCode)
                .map(Thread::getName)
                .collect(Collectors.toList());
    }

    private static URL[] userCodeUrls() throws MalformedURLException {
        List<URL> urls = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String path = entry.replace('\\', '/');
            boolean userCode = USER_CODE.stream().anyMatch(path::contains);
            if (userCode && !path.contains("tablestore-emulator")) {
                urls.add(new File(entry).toURI().toURL());
            }
        }
        return urls.toArray(URL[]::new);
    }
}
