package liarsdice.harness;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.Modifier;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import model.liarsDice.gameLogic.LiarsDiceBot;

/**
 * Runs one student's LiarsDiceBot under the referee's Liar's Dice line protocol
 * (docs/protocols/liars-dice.md).
 *
 * <pre>
 * java -jar liarsdice-harness.jar [--cp PATH[:PATH...]] BOTCLASS
 * java -cp liarsdice-harness.jar:DIR liarsdice.harness.Main BOTCLASS
 * </pre>
 *
 * BOTCLASS is the student's class, with or without its package. It is looked up on the
 * JVM's class path, then in the --cp entries, $REFEREE_BOT_DIR, the directory holding
 * the harness jar, and the working directory (in that order); a bare name that is not
 * found is searched for as NAME.class under those directories, so a file that declares
 * "package model.liarsDice.bots;" is found too.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        // The protocol owns the real stdin/stdout; a student's System.out.println goes to
        // stderr and a stray System.in read sees end of file, so neither can corrupt or
        // steal a protocol line.
        OutputStream wireOut = new FileOutputStream(FileDescriptor.out);
        FileInputStream wireIn = new FileInputStream(FileDescriptor.in);
        System.setOut(System.err);
        System.setIn(new ByteArrayInputStream(new byte[0]));
        PrintStream log = System.err;

        List<String> classPath = new ArrayList<String>();
        String className = null;
        for (int i = 0; i < args.length; i++) {
            if ((args[i].equals("--cp") || args[i].equals("-cp")) && i + 1 < args.length) {
                for (String part : args[++i].split(File.pathSeparator)) {
                    if (!part.isEmpty()) {
                        classPath.add(part);
                    }
                }
            } else if (className == null && !args[i].startsWith("-")) {
                className = args[i];
            } else {
                usage(log, "unexpected argument '" + args[i] + "'");
            }
        }
        if (className == null) {
            usage(log, "no bot class named");
        }

        LiarsDiceBot bot = createBot(className, classPath, log);
        String name;
        try {
            name = String.valueOf(bot.getName());
        } catch (Throwable t) {
            name = "(getName threw " + t + ")";
        }
        log.println(Table.TAG + "playing " + bot.getClass().getName() + " (\"" + name + "\")");

        Table.warmUp();
        Table table = new Table(bot, wireOut, log);
        BufferedReader in = new BufferedReader(new InputStreamReader(wireIn, StandardCharsets.US_ASCII));
        try {
            String line;
            while ((line = in.readLine()) != null) {
                table.handle(line);
            }
        } catch (IOException e) {
            log.println(Table.TAG + "input closed: " + e);
        }
        // End of input is the end of the match: exit even if the student left threads running.
        log.flush();
        System.exit(0);
    }

    private static void usage(PrintStream log, String problem) {
        log.println(Table.TAG + problem);
        log.println("usage: java -jar liarsdice-harness.jar [--cp PATH[:PATH...]] BOTCLASS");
        System.exit(2);
    }

    /** Loads and instantiates the student's class, or exits with a message saying why. */
    static LiarsDiceBot createBot(String className, List<String> extraPath, PrintStream log) {
        List<File> roots = searchRoots(extraPath);
        List<URL> urls = new ArrayList<URL>();
        for (File root : roots) {
            try {
                urls.add(root.toURI().toURL());
            } catch (MalformedURLException e) {
                log.println(Table.TAG + "ignoring class path entry " + root + ": " + e);
            }
        }
        ClassLoader loader = new URLClassLoader(urls.toArray(new URL[0]), Main.class.getClassLoader());
        Class<?> found = findClass(className, roots, loader);
        if (found == null) {
            log.println(Table.TAG + "cannot find class " + className + " (looked on the class path and in "
                    + roots + "); compile it with: javac -cp liarsdice-harness.jar -d . " + simpleName(className)
                    + ".java  (-d puts a class that declares a package in its folders)");
            System.exit(1);
        }
        if (!LiarsDiceBot.class.isAssignableFrom(found)) {
            log.println(Table.TAG + found.getName() + " does not extend model.liarsDice.gameLogic.LiarsDiceBot"
                    + " (was it compiled against another copy of the API?)");
            System.exit(1);
        }
        if (Modifier.isAbstract(found.getModifiers())) {
            log.println(Table.TAG + found.getName() + " is abstract");
            System.exit(1);
        }
        try {
            Constructor<?> constructor = found.getDeclaredConstructor();
            constructor.setAccessible(true);
            return (LiarsDiceBot) constructor.newInstance();
        } catch (NoSuchMethodException e) {
            log.println(Table.TAG + found.getName() + " needs a constructor without parameters");
        } catch (java.lang.reflect.InvocationTargetException e) {
            log.println(Table.TAG + "the constructor of " + found.getName() + " threw:");
            e.getCause().printStackTrace(log);
        } catch (Throwable t) {
            log.println(Table.TAG + "cannot create " + found.getName() + ":");
            t.printStackTrace(log);
        }
        System.exit(1);
        return null;
    }

    private static String simpleName(String className) {
        return className.substring(className.lastIndexOf('.') + 1);
    }

    private static List<File> searchRoots(List<String> extraPath) {
        Set<File> roots = new LinkedHashSet<File>();
        for (String part : extraPath) {
            addRoot(roots, new File(part));
        }
        String botDir = System.getenv("REFEREE_BOT_DIR");
        if (botDir != null && !botDir.isEmpty()) {
            addRoot(roots, new File(botDir));
        }
        try {
            File jar = new File(Main.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            addRoot(roots, jar.isFile() ? jar.getParentFile() : jar);
        } catch (Exception e) {
            // No code source (an unusual class loader): the other roots still apply.
        }
        addRoot(roots, new File("."));
        return new ArrayList<File>(roots);
    }

    private static void addRoot(Set<File> roots, File f) {
        if (f == null || !f.exists()) {
            return;
        }
        try {
            roots.add(f.getCanonicalFile());
        } catch (IOException e) {
            roots.add(f.getAbsoluteFile());
        }
    }

    private static Class<?> findClass(String className, List<File> roots, ClassLoader loader) {
        Class<?> c = tryLoad(className, loader);
        if (c != null || className.indexOf('.') >= 0) {
            return c;
        }
        // Bots of 2013 lived in package model.liarsDice.bots; try that, then look for the file.
        c = tryLoad("model.liarsDice.bots." + className, loader);
        if (c != null) {
            return c;
        }
        for (File root : roots) {
            if (!root.isDirectory()) {
                continue;
            }
            String qualified = search(root, "", className + ".class", 0, new int[] {0});
            if (qualified != null) {
                c = tryLoad(qualified, loader);
                if (c != null) {
                    return c;
                }
            }
        }
        return null;
    }

    /** The qualified name of the first DIR/a/b/NAME.class under dir (bounded, so a big tree is not walked). */
    private static String search(File dir, String pkg, String fileName, int depth, int[] budget) {
        File[] entries = dir.listFiles();
        if (entries == null || depth > 8) {
            return null;
        }
        for (File f : entries) {
            if (f.isFile() && f.getName().equals(fileName)) {
                String simple = fileName.substring(0, fileName.length() - ".class".length());
                return pkg.isEmpty() ? simple : pkg + "." + simple;
            }
        }
        for (File f : entries) {
            if (++budget[0] > 20000) {
                return null;
            }
            String n = f.getName();
            if (f.isDirectory() && Character.isJavaIdentifierStart(n.charAt(0)) && !n.startsWith(".")) {
                String hit = search(f, pkg.isEmpty() ? n : pkg + "." + n, fileName, depth + 1, budget);
                if (hit != null) {
                    return hit;
                }
            }
        }
        return null;
    }

    private static Class<?> tryLoad(String name, ClassLoader loader) {
        try {
            return Class.forName(name, false, loader);
        } catch (ClassNotFoundException e) {
            return null;
        } catch (LinkageError e) {
            return null; // a file of that name that is not that class (wrong package)
        }
    }
}
