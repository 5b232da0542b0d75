;; SPDX-License-Identifier: MIT
;;; seq.lisp --- string and sequence utilities of the dlisp prelude.

(defun string-join (strings &optional separator)
  "Join STRINGS with SEPARATOR (default none)."
  (mapconcat #'identity strings (or separator "")))

(defun string-blank-p (string)
  "True if STRING holds only whitespace."
  (every (lambda (c) (/= 0 (logand (char-class c) 1))) (string-to-list string)))

(defun string-trim-left (string)
  "STRING without leading whitespace."
  (let ((i 0) (n (length string)))
    (while (and (< i n) (/= 0 (logand (char-class (aref string i)) 1)))
      (setq i (1+ i)))
    (substring string i)))

(defun string-trim-right (string)
  "STRING without trailing whitespace."
  (let ((i (length string)))
    (while (and (> i 0) (/= 0 (logand (char-class (aref string (1- i))) 1)))
      (setq i (1- i)))
    (substring string 0 i)))

(defun string-trim (string)
  "STRING without leading and trailing whitespace."
  (string-trim-right (string-trim-left string)))

(defun string-pad (string width &optional padding)
  "STRING padded on the right with PADDING (a char, default space) to WIDTH."
  (let ((n (length string)))
    (if (>= n width) string
      (concat string (make-string (- width n) (or padding ?\s))))))

(defun string-repeat (string count)
  "STRING repeated COUNT times."
  (let ((parts nil))
    (dotimes (i count) (push string parts))
    (apply #'concat parts)))

(defun string-replace (from to string)
  "STRING with every occurrence of FROM replaced by TO."
  (let ((parts nil) (start 0) (pos nil) (flen (length from)))
    (while (setq pos (string-search from string start))
      (push (substring string start pos) parts)
      (push to parts)
      (setq start (+ pos flen)))
    (push (substring string start) parts)
    (apply #'concat (nreverse parts))))

(defun string-reverse (string)
  "STRING with its characters in reverse order."
  (concat (nreverse (string-to-list string))))

(defun capitalize-word (word)
  "WORD with its first letter upper-cased."
  (if (string= word "") word
    (concat (string (upcase (aref word 0))) (substring word 1))))

(defun words (string)
  "The whitespace-separated words of STRING."
  (split-string string))

(defun seq-count (pred seq)
  "How many elements of SEQ satisfy PRED."
  (let ((n 0))
    (dolist (x (append seq nil)) (when (funcall pred x) (setq n (1+ n))))
    n))

(defun seq-uniq (seq)
  "The elements of SEQ without duplicates."
  (delete-dups (append seq nil)))

(defun seq-take-while (pred seq)
  "The leading elements of SEQ that satisfy PRED."
  (let ((result nil) (l (append seq nil)))
    (while (and l (funcall pred (car l)))
      (push (pop l) result))
    (nreverse result)))

(defun seq-group-by (fn seq)
  "An alist of (KEY . ELEMENTS) grouping SEQ by the KEY FN returns."
  (let ((table (make-hash-table :test 'equal)) (result nil))
    (dolist (x (append seq nil))
      (let ((key (funcall fn x)))
        (puthash key (cons x (gethash key table)) table)))
    (maphash (lambda (k v) (push (cons k (nreverse v)) result)) table)
    (nreverse result)))

(defun sort-strings (strings)
  "STRINGS sorted by their bytes (a copy)."
  (sort (copy-sequence strings) #'string<))

(defun word-frequencies (text)
  "An equal hash table from each word of TEXT to its count."
  (let ((table (make-hash-table :test 'equal)))
    (dolist (w (words (downcase text)))
      (puthash w (1+ (gethash w table 0)) table))
    table))
