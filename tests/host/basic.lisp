;; SPDX-License-Identifier: MIT
;;; tests/host/basic.lisp --- an end-to-end test run through `dlisp --batch'.
;;
;; Uses the prelude (macros, list, string and keymap utilities) the way a
;; program would, counts failures, and exits non-zero if any check
;; fails.  Each check prints PASS or FAIL with its name.

(defvar test-failures 0)
(defvar test-count 0)

(defmacro check (name form expected)
  `(let ((actual (condition-case err ,form (error (list 'error err)))))
     (setq test-count (1+ test-count))
     (if (equal actual ,expected)
         (princ (format "PASS %s\n" ,name))
       (setq test-failures (1+ test-failures))
       (princ (format "FAIL %s: got %S, expected %S\n" ,name actual ,expected)))))

(check "dolist" (let ((r nil)) (dolist (x '(1 2 3) r) (push (* 10 x) r))) '(30 20 10))
(check "dotimes" (let ((s 0)) (dotimes (i 5 s) (incf s i))) 10)
(check "when/unless" (list (when t 1) (unless t 1) (unless nil 2)) '(1 nil 2))
(check "filter" (filter #'oddp (number-sequence 1 10)) '(1 3 5 7 9))
(check "reduce" (reduce #'+ (number-sequence 1 100) 0) 5050)
(check "flatten" (flatten '(1 (2 (3 4)) ((5)))) '(1 2 3 4 5))
(check "delete-dups" (delete-dups '("a" "b" "a" 1 1)) '("a" "b" 1))
(check "string-join" (string-join '("a" "b" "c") ", ") "a, b, c")
(check "string-trim" (string-trim "  padded \n") "padded")
(check "string-replace" (string-replace "o" "0" "foo boo") "f00 b00")
(check "multibyte" (list (length "日本語") (string-reverse "añb")) '(3 "bña"))
(check "word-frequencies"
       (gethash "the" (word-frequencies "The cat and the hat and THE bat")) 3)
(check "keymap lookup" (lookup-key global-map "C-x C-f") 'find-file)
(check "keymap prefix" (keymapp (lookup-key global-map "C-x 4")) t)
(check "keymap define"
       (progn (define-key global-map "C-c z z" 'zz-command)
              (lookup-key global-map "C-c z z"))
       'zz-command)
(check "char properties" (list (char-property ?A 'category) (char-property ?a 'case)
                               (char-property #x3b1 'block))
       '(upper 65 greek))
(check "documentation" (documentation 'string-trim) "STRING without leading and trailing whitespace.")
(check "torture circular" (let ((c (plist-get dlisp-torture 'circular)))
                            (eq c (nthcdr 3 c)))
       t)
(check "torture big string" (length (plist-get dlisp-torture 'big-string)) 1200000)
(check "torture big vector" (length (plist-get dlisp-torture 'big-vector)) 160000)
(check "torture eq table"
       (gethash (plist-get dlisp-torture 'shared) (plist-get dlisp-torture 'eq-table))
       'shared)
(check "torture closure" (funcall (plist-get dlisp-torture 'closure)) 2)
(check "torture floats" (isnan (nth 6 (plist-get dlisp-torture 'floats))) t)
(check "world" (length dlisp-world) dlisp-loadup-scale)
(check "insert into old tables"
       (let ((by-word (aref (car dlisp-world) 7))
             (by-object (plist-get dlisp-torture 'eq-table)))
         (puthash "zzz-new-word" 1 by-word)
         (puthash 'zzz-new-key 2 by-object)
         (list (gethash "zzz-new-word" by-word) (integerp (gethash "buffer" by-word))
               (gethash 'zzz-new-key by-object)
               (gethash (plist-get dlisp-torture 'self-vector) by-object)))
       '(1 t 2 self-vector))
(check "per-start variables" (list (stringp default-directory) (floatp dlisp-start-time)
                                   (and (memq dlisp-origin '(cold pdump unexec)) t))
       (list t t t))
(check "errors are lisp errors"
       (condition-case e (car 'x) (wrong-type-argument (car e)))
       'wrong-type-argument)
(check "objects reachable only through old objects survive collections"
       (let ((v (plist-get dlisp-torture 'self-vector)))
         (aset v 2 (list (make-string 3 ?q) (vector 1.5 "fresh")))
         (define-key global-map "C-c y y" (list 'fresh (format "%d" 42)))
         (dotimes (i 3)
           (make-list 100000 "garbage")
           (garbage-collect))
         (list (aref v 2) (lookup-key global-map "C-c y y")))
       '(("qqq" [1.5 "fresh"]) (fresh "42")))
(check "gc keeps the world" (progn (garbage-collect) (length (aref (car dlisp-world) 0))) 3000)

(princ (format "%d checks, %d failed\n" test-count test-failures))
(kill-emacs (if (= test-failures 0) 0 1))
