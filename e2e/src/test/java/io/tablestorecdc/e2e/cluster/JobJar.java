package io.tablestorecdc.e2e.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarInputStream;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;

/**
 * A job's fat jar as a user builds one: the shaded connector jar's classes with the job's own (this
 * module's classes under {@code io/tablestorecdc/e2e/}), submitted to a cluster that has neither.
 */
public final class JobJar {

    private static final String OWN_PACKAGE = "io/tablestorecdc/e2e/";

    private JobJar() {}

    /**
     * Writes the jar to {@code target}: {@code connectorJar}'s entries, then the classes of the
     * directories that hold {@code jobClasses}, then the {@code libraryClasses} one by one.
     */
    public static Path build(
            Path target,
            Path connectorJar,
            List<Class<?>> jobClasses,
            List<Class<?>> libraryClasses)
            throws IOException {
        Set<String> written = new HashSet<>();
        try (OutputStream file = Files.newOutputStream(target);
                JarOutputStream jar = new JarOutputStream(file, new Manifest())) {
            written.add("META-INF/MANIFEST.MF");
            try (JarInputStream in = new JarInputStream(Files.newInputStream(connectorJar))) {
                for (JarEntry e = in.getNextJarEntry(); e != null; e = in.getNextJarEntry()) {
                    if (written.add(e.getName())) {
                        jar.putNextEntry(new JarEntry(e.getName()));
                        in.transferTo(jar);
                        jar.closeEntry();
                    }
                }
            }
            Set<Path> roots = new HashSet<>();
            for (Class<?> c : jobClasses) {
                roots.add(classesRoot(c));
            }
            for (Path root : roots) {
                addClasses(jar, root, written);
            }
            for (Class<?> c : libraryClasses) {
                addClass(jar, c, written);
            }
        }
        return target;
    }

    /** One class of a library the job uses (its nested classes, if any, are not added). */
    private static void addClass(JarOutputStream jar, Class<?> c, Set<String> written)
            throws IOException {
        String name = c.getName().replace('.', '/') + ".class";
        if (!written.add(name)) {
            return;
        }
        try (InputStream in = c.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("No class file for " + c);
            }
            jar.putNextEntry(new JarEntry(name));
            in.transferTo(jar);
            jar.closeEntry();
        }
    }

    private static void addClasses(JarOutputStream jar, Path root, Set<String> written)
            throws IOException {
        Path own = root.resolve(OWN_PACKAGE);
        if (!Files.isDirectory(own)) {
            return;
        }
        try (Stream<Path> files = Files.walk(own)) {
            for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                String name = root.relativize(f).toString().replace('\\', '/');
                if (written.add(name)) {
                    jar.putNextEntry(new JarEntry(name));
                    try (InputStream in = Files.newInputStream(f)) {
                        in.transferTo(jar);
                    }
                    jar.closeEntry();
                }
            }
        }
    }

    private static Path classesRoot(Class<?> c) {
        try {
            return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
