package io.tablestorecdc.e2e.cluster;

import java.nio.file.Path;
import org.apache.spark.SparkConf;
import org.apache.spark.deploy.master.Master$;
import org.apache.spark.deploy.worker.Worker$;
import org.apache.spark.rpc.RpcEnv;
import scala.Option;

/**
 * A Spark standalone master and one worker, started inside the test's JVM; the worker launches each
 * executor as a separate JVM. No Spark installation is needed: the executors get the test's own
 * classpath (absolute entries, as surefire gives it) through {@code spark.executor.extraClassPath},
 * and the environment variables that stand in for a distribution for Spark's launcher ({@code
 * SPARK_SCALA_VERSION}, {@code SPARK_SQL_TESTING}) are set for them.
 *
 * <p>Why not {@code local-cluster[...]}: its workers write their executor folders to {@code
 * $SPARK_HOME/work}, and {@code SPARK_HOME} can only come from the environment of the test JVM,
 * which a test cannot set; without it they land in {@code ./work} inside the source tree. Started
 * here, the worker's folder is one the test chooses.
 */
final class StandaloneSparkCluster implements AutoCloseable {

    private static final String HOST = "127.0.0.1";

    private final RpcEnv master;
    private final RpcEnv worker;

    private StandaloneSparkCluster(RpcEnv master, RpcEnv worker) {
        this.master = master;
        this.worker = worker;
    }

    /** A master and a worker offering {@code cores} cores and {@code memoryMb} to executors. */
    static StandaloneSparkCluster start(int cores, int memoryMb, Path workDir) {
        SparkConf conf = new SparkConf(false);
        RpcEnv master = Master$.MODULE$.startRpcEnvAndEndpoint(HOST, 0, 0, conf)._1();
        try {
            RpcEnv worker =
                    Worker$.MODULE$.startRpcEnvAndEndpoint(
                            HOST,
                            0,
                            0,
                            cores,
                            memoryMb,
                            new String[] {url(master)},
                            workDir.toString(),
                            Option.empty(),
                            conf,
                            Option.empty());
            return new StandaloneSparkCluster(master, worker);
        } catch (RuntimeException e) {
            master.shutdown();
            throw e;
        }
    }

    private static String url(RpcEnv master) {
        return "spark://" + HOST + ":" + master.address().port();
    }

    /** The master URL for {@code SparkSession.builder().master(...)}. */
    String masterUrl() {
        return url(master);
    }

    /** Settings an application needs so the worker can launch its executors from this JVM. */
    static SparkConf executorSettings(SparkConf conf) {
        return conf.set("spark.executor.extraClassPath", System.getProperty("java.class.path"))
                .set("spark.executorEnv.SPARK_SCALA_VERSION", "2.12")
                .set("spark.executorEnv.SPARK_SQL_TESTING", "1")
                .set("spark.driver.host", HOST)
                .set("spark.driver.bindAddress", HOST);
    }

    /** Stops the worker (which kills its executors) and then the master. */
    @Override
    public void close() {
        try {
            worker.shutdown();
            worker.awaitTermination();
        } finally {
            master.shutdown();
            master.awaitTermination();
        }
    }
}
