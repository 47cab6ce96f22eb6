package io.tablestorecdc.checkpoint.lifecycle;

import io.tablestorecdc.checkpoint.annotation.Internal;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.Enumeration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads, without initialising them, the classes a close may need, while the classloader that holds
 * them can still load classes.
 *
 * <p>On a Flink cluster the connector runs in the job's user-code classloader, and the job manager
 * closes that classloader as soon as the job has ended. The source coordinator, though, is closed
 * on a thread of its own that nobody waits for: the enumerator's close (shut the tunnel client
 * down, release the owner lease, stop the clients' I/O threads) races with the classloader's close,
 * and a class it needs for the first time after that cannot be loaded. The close then stops
 * half-way, the lease stays held until it expires and the clients' threads run on. Classes already
 * loaded keep working after the classloader closed, so loading the close path's classes up front
 * makes the close independent of that race.
 *
 * <p>Nothing is loaded when the classes come from the application classpath (a local run, or the
 * connector in the cluster's {@code lib/}): that classloader is never closed.
 */
@Internal
public final class ClassPreload {

    /**
     * Packages of the Tablestore SDK (and of the HTTP client it bundles) that closing a client and
     * the requests sent on close use: the response handlers, the tunnel requests, the tunnel's
     * shutdown messages and the asynchronous HTTP client with its I/O reactor.
     */
    public static final List<String> SDK_CLOSE_PATH =
            List.of(
                    "com/alicloud/openservices/tablestore/core/http/",
                    "com/alicloud/openservices/tablestore/model/tunnel/internal/",
                    "com/alicloud/openservices/tablestore/core/protocol/TunnelServiceApi$Shutdown",
                    "com/aliyun/ots/thirdparty/org/apache/http/impl/nio/",
                    "com/aliyun/ots/thirdparty/org/apache/http/nio/");

    /** This project's core, all of it (its exceptions and close paths included). */
    public static final String CORE = "io/tablestorecdc/checkpoint/";

    private static final Logger LOG = LoggerFactory.getLogger(ClassPreload.class);

    private ClassPreload() {}

    /**
     * Loads every class under {@code prefixes} (paths with {@code /}) of the jars that hold the
     * {@code anchors}, through the anchors' classloader, unless that is the application's.
     *
     * @return how many classes were loaded (0 when there was nothing to do)
     */
    public static int load(List<Class<?>> anchors, List<String> prefixes) {
        if (anchors.isEmpty()) {
            return 0;
        }
        ClassLoader loader = anchors.get(0).getClassLoader();
        if (loader == null || loader == ClassLoader.getSystemClassLoader()) {
            return 0;
        }
        long start = System.nanoTime();
        int loaded = 0;
        for (Path jar : jarsOf(anchors)) {
            loaded += loadFrom(jar, loader, prefixes);
        }
        LOG.debug(
                "Loaded {} classes of the close path in {} ms",
                loaded,
                (System.nanoTime() - start) / 1_000_000);
        return loaded;
    }

    private static Set<Path> jarsOf(List<Class<?>> anchors) {
        Set<Path> jars = new LinkedHashSet<>();
        for (Class<?> anchor : anchors) {
            CodeSource source = anchor.getProtectionDomain().getCodeSource();
            if (source == null || source.getLocation() == null) {
                continue;
            }
            try {
                Path path = Path.of(source.getLocation().toURI());
                if (Files.isRegularFile(path)) {
                    jars.add(path);
                }
            } catch (URISyntaxException | IllegalArgumentException e) {
                LOG.debug("Cannot read the classes of {} from {}", anchor, source.getLocation());
            }
        }
        return jars;
    }

    private static int loadFrom(Path jar, ClassLoader loader, List<String> prefixes) {
        int loaded = 0;
        try (JarFile file = new JarFile(jar.toFile())) {
            Enumeration<JarEntry> entries = file.entries();
            while (entries.hasMoreElements()) {
                String name = entries.nextElement().getName();
                if (name.endsWith(".class") && matches(name, prefixes) && load(name, loader)) {
                    loaded++;
                }
            }
        } catch (IOException e) {
            LOG.debug("Cannot read {}: {}", jar, e.toString());
        }
        return loaded;
    }

    private static boolean matches(String name, List<String> prefixes) {
        for (String prefix : prefixes) {
            if (name.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    private static boolean load(String entry, ClassLoader loader) {
        String className = entry.substring(0, entry.length() - ".class".length()).replace('/', '.');
        try {
            Class.forName(className, false, loader);
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false; // a class of an optional dependency that is not there: never used
        }
    }
}
